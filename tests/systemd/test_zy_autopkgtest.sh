#!/bin/sh
# In the systemd guest, on either kernel, with the package installed: the
# package's autopkgtest (debian/tests/tslack) as autopkgtest runs it, as
# root on a machine of its own; a line on its standard error fails it, as
# there (no allow-stderr). Late in the order: it stops and starts
# tslack.service, which test_package.sh sees as attached once, at boot.
. /usr/local/lib/tslack/systemd-lib.sh
plan 1

# As the package left the machine: systemd-lib.sh stopped tslackd.
systemctl start tslackd.service
out=/run/tslack-test/autopkgtest
mkdir -p "$out"
(cd "$out" && /usr/local/libexec/tslack/autopkgtest/tslack >"$out/stdout" 2>"$out/stderr")
rc=$?
sed 's/^/# /' "$out/stdout"
eq autopkgtest/tslack "0 " "$rc $(head -c 300 "$out/stderr")"
exit 0
