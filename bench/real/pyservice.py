#!/usr/bin/python3
# make bench-real: a small asyncio service of the kind many deployments
# run (stdlib only): an HTTP/1.0 responder on 127.0.0.1:8081 and the
# timers such a service keeps, a 100 ms queue poll and a 1 s metrics
# flush. Each waits in epoll_wait() with a timeout, where slack applies.
import asyncio
import time

served = 0
polls = 0


async def handle(reader, writer):
	global served
	try:
		while (await reader.readline()) not in (b"\r\n", b"\n", b""):
			pass
		body = b"ok %d\n" % served
		writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
			     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
		await writer.drain()
		served += 1
	finally:
		writer.close()


async def queue_poll():
	global polls
	while True:
		await asyncio.sleep(0.1)
		polls += 1


async def metrics():
	last = time.monotonic()
	while True:
		await asyncio.sleep(1)
		now = time.monotonic()
		last = now


async def main():
	server = await asyncio.start_server(handle, "127.0.0.1", 8081)
	asyncio.create_task(queue_poll())
	asyncio.create_task(metrics())
	async with server:
		await server.serve_forever()

asyncio.run(main())
