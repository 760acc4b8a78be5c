// make bench-real: a small timer-driven Node.js service: an HTTP server
// on 127.0.0.1:8082, a 50 ms setInterval (a job queue poll) and a 1 s one
// (metrics), as libuv runs them: epoll_wait() with the nearest timeout.
'use strict';
const http = require('http');

let served = 0, polls = 0, flushed = 0;
setInterval(() => { polls++; }, 50);
setInterval(() => { flushed = polls; }, 1000);
http.createServer((req, res) => {
	served++;
	res.writeHead(200, { 'Content-Type': 'text/plain' });
	res.end(`ok ${served} ${flushed}\n`);
}).listen(8082, '127.0.0.1');
