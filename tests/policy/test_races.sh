#!/bin/sh
# The races of make stress (tests/stress/tslack-stress.sh), for 8 s on the
# test kernel: direct map writes, tslackctl set, mkdir/rmdir, task moves
# and attach/detach at once; then every sleeper ends on the map's value.
exec tslack-stress 8
