'use strict';
// One node of cluster/fanout on loopwire: the ws/fanout server (subscribers, role=sub, join one topic; what the
// publisher sends is published to it) with its pub/sub linked to Redis by app.connectPubSub, so that a publish on
// one node reaches the subscribers of both. Prints "listening on <port>", then "linked" once the link is ready.
const { MAX_MESSAGE_BYTES, FANOUT_TOPIC, FANOUT_MAX_BACKPRESSURE_BYTES, UNAVAILABLE_EXIT_STATUS } =
  require('../common');

const argument = (name) => process.argv[process.argv.indexOf(name) + 1];
let uWS;
try {
  uWS = require(argument('--module'));
} catch (error) {
  process.stderr.write(`cannot load ${argument('--module')}: ${error.message}\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}
const app = uWS.App();
if (typeof app.connectPubSub !== 'function') {
  process.stderr.write('this loopwire has no connectPubSub\n');
  process.exit(UNAVAILABLE_EXIT_STATUS);
}
app.ws('/*', {
  compression: uWS.DISABLED,
  maxPayloadLength: MAX_MESSAGE_BYTES,
  maxBackpressure: FANOUT_MAX_BACKPRESSURE_BYTES,
  upgrade: (res, req, context) => {
    res.upgrade({ subscriber: req.getQuery('role') === 'sub' }, req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },
  open: (ws) => {
    if (ws.getUserData().subscriber) ws.subscribe(FANOUT_TOPIC);
  },
  message: (ws, message, isBinary) => {
    if (!ws.getUserData().subscriber) app.publish(FANOUT_TOPIC, message, isBinary);
  },
});
app.connectPubSub(argument('--redis'), {
  ready: () => process.stdout.write('linked\n'),
  error: (error) => process.stderr.write(`pub/sub: ${error.code}: ${error.message}\n`),
});
app.listen(0, (listenSocket) => {
  if (!listenSocket) process.exit(1);
  process.stdout.write(`listening on ${uWS.us_socket_local_port(listenSocket)}\n`);
});
