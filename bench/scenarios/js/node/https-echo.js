'use strict';
// Scenario wss/echo-20b on node:https and the `ws` package: ws/echo-* over TLS, with the key and certificate
// files of --key and --cert. Exits with status 3 and a message when `ws` is not installed.
const fs = require('node:fs');
const https = require('node:https');
const { MAX_MESSAGE_BYTES, parseTlsArgs, announce, failToListen } = require('../common');

let WebSocketServer;
try {
  ({ WebSocketServer } = require('ws'));
} catch {
  process.stderr.write('the wss/* scenarios on node need the `ws` package: npm install\n');
  process.exit(3);
}

const { port, key, cert } = parseTlsArgs();
const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) });
const sockets = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
sockets.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
