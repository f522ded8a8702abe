'use strict';
// Scenario http/cached on node:http: GET /cached answers with a ~1 KB page prepared at startup (common.js).
const http = require('node:http');
const { parseArgs, announce, failToListen, cachedPage } = require('../common');

const { port } = parseArgs();
const page = cachedPage();
const headers = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': page.length };
const server = http.createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/cached') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, headers);
  res.end(page);
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
