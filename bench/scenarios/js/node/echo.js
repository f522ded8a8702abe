'use strict';
// Scenarios ws/echo-* on the `ws` package (a devDependency): every message is sent back as it came, binary or
// text, without compression. Exits with status 3 and a message when `ws` is not installed.
const { MAX_MESSAGE_BYTES, parseArgs, announce, failToListen } = require('../common');

let WebSocketServer;
try {
  ({ WebSocketServer } = require('ws'));
} catch {
  process.stderr.write('the ws/* scenarios on node need the `ws` package: npm install\n');
  process.exit(3);
}

const { port } = parseArgs();
const server = new WebSocketServer({
  host: '127.0.0.1',
  port,
  perMessageDeflate: false,
  maxPayload: MAX_MESSAGE_BYTES,
});
server.on('error', () => failToListen(port));
server.on('listening', () => announce(server.address().port));
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
});
