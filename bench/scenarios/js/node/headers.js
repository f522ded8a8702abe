'use strict';
// Scenario http/headers on node:http: GET /headers reads x-request-id, accept, user-agent and the query parameters
// user and lang, and answers with X-Request-Id (echoed), Content-Type and Cache-Control and a body made of what it
// read (common.js headersAnswer). With --http2, on node:http2's compatibility API (h2c/headers, and h2/headers given
// --key and --cert).
const { createNodeServer, parseArgs, announce, failToListen, headersAnswer } = require('../common');

const args = parseArgs();
const { port } = args;
const server = createNodeServer(args, (req, res) => {
  const queryStart = req.url.indexOf('?');
  const path = queryStart < 0 ? req.url : req.url.slice(0, queryStart);
  if (req.method !== 'GET' || path !== '/headers') {
    res.writeHead(404).end();
    return;
  }
  const query = new URLSearchParams(queryStart < 0 ? '' : req.url.slice(queryStart + 1));
  const answer = headersAnswer(query.get('user'), query.get('lang'), req.headers.accept, req.headers['user-agent']);
  if (answer === null) {
    res.writeHead(400).end('too long');
    return;
  }
  res.writeHead(200, {
    'X-Request-Id': req.headers['x-request-id'] ?? '',
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(answer),
  });
  res.end(answer);
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
