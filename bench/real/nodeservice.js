// make bench-real: a small Node.js service of the kind many deployments
// run (Node's own modules only): an HTTP/1.1 responder on 127.0.0.1:8082
// and the timers such a service keeps, a 100 ms queue poll that does a
// little work and a 1 s metrics flush. libuv waits in epoll_wait() with
// the nearest timer's timeout, where slack applies.
'use strict';
const http = require('http');

let served = 0;
const queue = [];
// Requests taken by each of the last 10 polls: a rate over the last second.
const taken = new Array(10).fill(0);
let polls = 0;
let metrics = '';

http.createServer((req, res) => {
	served++;
	queue.push(req.url);
	const body = `ok ${served}\n`;
	res.writeHead(200, {
		'Content-Type': 'text/plain',
		'Content-Length': Buffer.byteLength(body),
	});
	res.end(body);
}).listen(8082, '127.0.0.1');

// The queue poll: drains what the requests left, keeps the rate.
setInterval(() => {
	let n = 0;
	while (queue.length > 0) {
		queue.shift();
		n++;
	}
	taken[polls % taken.length] = n;
	polls++;
}, 100);

// The metrics flush: a summary of the last second, as JSON.
setInterval(() => {
	metrics = JSON.stringify({
		served,
		polls,
		rate: taken.reduce((a, b) => a + b, 0),
		rss: process.memoryUsage().rss,
	});
}, 1000);
