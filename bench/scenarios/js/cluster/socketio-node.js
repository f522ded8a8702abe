'use strict';
// One node of cluster/fanout on socket.io with its Redis adapter (@socket.io/redis-adapter over two ioredis
// connections), the way socket.io's users scale out: a socket whose handshake has role=sub in its query joins the
// room FANOUT_TOPIC; what any other socket (the publisher) emits as event "m" is emitted to that room, which the
// adapter delivers to this node's members and, through Redis, to the other node's. WebSocket transport only, no
// compression. lwload speaks socket.io to it (lwload fanout --socket-io: engine.io's open and ping packets,
// socket.io's connect, and every message as the text of a "42" event packet). The packages are installed by the
// runner into its cache (bench/ab/socketio.js), never dependencies of loopwire; --module is the socket.io
// package's folder. Prints "listening on <port>", then "linked" once the adapter's subscriptions are in place.
const http = require('node:http');
const path = require('node:path');
const { UNAVAILABLE_EXIT_STATUS, MAX_MESSAGE_BYTES, FANOUT_TOPIC } = require('../common');

const argument = (name) => process.argv[process.argv.indexOf(name) + 1];
let Server;
let createAdapter;
let Redis;
try {
  const modules = path.dirname(argument('--module'));
  ({ Server } = require(argument('--module')));
  ({ createAdapter } = require(path.join(modules, '@socket.io', 'redis-adapter')));
  Redis = require(path.join(modules, 'ioredis'));
} catch (error) {
  process.stderr.write(`cannot load socket.io and its Redis adapter: ${error.message}\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}

const publisher = new Redis(argument('--redis'));
const subscriber = publisher.duplicate();
const server = http.createServer();
const io = new Server(server, {
  transports: ['websocket'],
  perMessageDeflate: false,
  maxHttpBufferSize: MAX_MESSAGE_BYTES,
  serveClient: false,
});
io.adapter(createAdapter(publisher, subscriber));
io.on('connection', (socket) => {
  if (socket.handshake.query.role === 'sub') {
    socket.join(FANOUT_TOPIC);
  } else {
    socket.on('m', (data) => io.to(FANOUT_TOPIC).emit('m', data));
  }
});
let listening = false;
let subscribed = false;
const announce = () => {
  if (listening && subscribed) process.stdout.write('linked\n');
};
// The adapter subscribed when it was made; a PING on the same connection is answered after those subscriptions.
subscriber.ping().then(() => { subscribed = true; announce(); });
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`);
  listening = true;
  announce();
});
