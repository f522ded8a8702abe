'use strict';
// One node of cluster/fanout on loopwire: the ws/fanout server (subscribers, role=sub, join one topic; what the
// publisher sends is published to it) with its pub/sub linked to Redis by app.connectPubSub, so that a publish on
// one node reaches the subscribers of both. Prints "listening on <port>", then "linked" once the link is ready.
// --history N: the topic keeps its last N messages in Redis, and every delivery comes stamped with its position.
const { UNAVAILABLE_EXIT_STATUS } = require('../common');
const { fanoutBehavior, FANOUT_TOPIC } = require('../uws/fanoutBehavior');

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
app.ws('/*', fanoutBehavior(uWS, (message, isBinary) => app.publish(FANOUT_TOPIC, message, isBinary)));
const historySize = process.argv.includes('--history') ? Number(argument('--history')) : 0;
app.connectPubSub(argument('--redis'), {
  ...(historySize > 0 ? { history: { size: historySize } } : {}),
  ready: () => process.stdout.write('linked\n'),
  error: (error) => process.stderr.write(`pub/sub: ${error.code}: ${error.message}\n`),
});
app.listen(0, (listenSocket) => {
  if (!listenSocket) process.exit(1);
  process.stdout.write(`listening on ${uWS.us_socket_local_port(listenSocket)}\n`);
});
