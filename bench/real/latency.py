#!/usr/bin/python3
# make bench-real: memcached's latency client (none is packaged with
# percentiles). Usage: latency.py PORT REQUESTS RATE
# One connection to 127.0.0.1:PORT, one "get" at a time, RATE a second
# (light load: the server idles between requests); prints the latencies'
# p50, p99 and mean in microseconds of CLOCK_MONOTONIC.
import socket
import sys
import time

port, n, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def call(req, end):
	s.sendall(req)
	buf = b""
	while not buf.endswith(end):
		got = s.recv(4096)
		if not got:
			sys.exit("latency.py: connection closed")
		buf += got


call(b"set tslack 0 0 5\r\nhello\r\n", b"STORED\r\n")
lat = []
start = time.monotonic()
for i in range(n):
	t = time.monotonic_ns()
	call(b"get tslack\r\n", b"END\r\n")
	lat.append(time.monotonic_ns() - t)
	pause = start + (i + 1) / rate - time.monotonic()
	if pause > 0:
		time.sleep(pause)
lat.sort()
print("%.1f %.1f %.1f" % (lat[len(lat) // 2] / 1e3, lat[(len(lat) * 99) // 100] / 1e3,
			  sum(lat) / len(lat) / 1e3))
