'use strict';
// Scenario http/json-post-1kb on node:http: POST /json; the body is collected from 'data' events, parsed as JSON
// and answered by common.js jsonAnswer. A body over MAX_BODY_BYTES gets 413 and the connection is closed. With
// --http2, on node:http2's compatibility API (h2c/post-1kb, and h2/post-1kb given --key and --cert), where a
// Connection field is refused.
const { MAX_BODY_BYTES, createNodeServer, parseArgs, announce, failToListen, jsonAnswer } = require('../common');

const args = parseArgs();
const { port } = args;
const server = createNodeServer(args, (req, res) => {
  if (req.method !== 'POST' || req.url !== '/json') {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk) => {
    if (refused) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      refused = true;
      res.writeHead(413, args.http2 ? {} : { Connection: 'close' }).end();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const { status, body } = jsonAnswer(Buffer.concat(chunks, size));
    res.writeHead(Number.parseInt(status, 10), {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
