'use strict';
// Scenario ws/fanout on the `ws` package (a devDependency): a connection whose upgrade request has role=sub in its
// query is a subscriber; every message any other connection (the publisher) sends goes to every open subscriber,
// as it came, binary or text, without compression. `ws` has no pub/sub, so this is its documented broadcast: a
// loop of client.send() (a frame built once and written to every socket would need its private Sender API).
// Exits with status 3 and a message when `ws` is not installed.
const { MAX_MESSAGE_BYTES, parseArgs, announce, failToListen } = require('../common');

let WebSocket;
let WebSocketServer;
try {
  ({ WebSocket, WebSocketServer } = require('ws'));
} catch {
  process.stderr.write('the ws/* scenarios on node need the `ws` package: npm install\n');
  process.exit(3);
}

const { port } = parseArgs();
const subscribers = new Set();
const server = new WebSocketServer({
  host: '127.0.0.1',
  port,
  perMessageDeflate: false,
  maxPayload: MAX_MESSAGE_BYTES,
});
server.on('error', () => failToListen(port));
server.on('listening', () => announce(server.address().port));
server.on('connection', (socket, request) => {
  const query = request.url.indexOf('?');
  const role = query < 0 ? null : new URLSearchParams(request.url.slice(query + 1)).get('role');
  if (role === 'sub') {
    subscribers.add(socket);
    socket.on('close', () => subscribers.delete(socket));
    return;
  }
  socket.on('message', (data, isBinary) => {
    for (const client of subscribers) {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    }
  });
});
