'use strict';
// Scenario http/hello-world on node:http: every GET is answered with "Hello world!".
const http = require('node:http');
const { HELLO_WORLD, parseArgs, announce, failToListen } = require('../common');

const { port } = parseArgs();
const server = http.createServer((req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(404).end();
    return;
  }
  res.end(HELLO_WORLD);
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
