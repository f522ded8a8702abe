'use strict';
// Scenario http/hello-world on node:http: every GET is answered with "Hello world!". With --http2, on node:http2's
// compatibility API (h2c/hello-*, and h2/hello-* given --key and --cert).
const { HELLO_WORLD, createNodeServer, parseArgs, announce, failToListen } = require('../common');

const args = parseArgs();
const { port } = args;
const server = createNodeServer(args, (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(404).end();
    return;
  }
  res.end(HELLO_WORLD);
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
