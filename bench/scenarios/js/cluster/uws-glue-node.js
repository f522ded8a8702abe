'use strict';
// One node of cluster/fanout on uWebSockets.js with the glue its users write (uWebSockets.js has no pub/sub
// across processes): two ioredis connections, one that publishes every message to Redis and one subscribed to the
// topic's channel whose messages app.publish delivers locally. The publishing node's own subscribers get the
// message from Redis too, as with every such glue (delivering locally as well would deliver twice). ioredis is
// installed by the runner beside uwebsockets (bench/ab/uws.js), never a dependency of loopwire. Prints
// "listening on <port>", then "linked" once both connections are ready and subscribed.
const path = require('node:path');
const { UNAVAILABLE_EXIT_STATUS } = require('../common');
const { fanoutBehavior, FANOUT_TOPIC } = require('../uws/fanoutBehavior');

const argument = (name) => process.argv[process.argv.indexOf(name) + 1];
const CHANNEL = `glue:${FANOUT_TOPIC}`;
let uWS;
let Redis;
try {
  uWS = require(argument('--module'));
  Redis = require(path.join(path.dirname(argument('--module')), 'ioredis'));
} catch (error) {
  process.stderr.write(`cannot load the glue's modules: ${error.message}\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}

const publisher = new Redis(argument('--redis'));
const subscriber = new Redis(argument('--redis'));
const app = uWS.App();
// The message's memory is uWebSockets.js's only during the call: ioredis gets a copy. isBinary does not cross the
// glue: what comes back from Redis is published as binary, which is what lwload sends.
app.ws('/*', fanoutBehavior(uWS, (message) => publisher.publish(CHANNEL, Buffer.from(message))));
subscriber.on('messageBuffer', (channel, message) => {
  app.publish(FANOUT_TOPIC, message, true);
});
let listening = false;
let subscribed = false;
const announce = () => {
  if (listening && subscribed) process.stdout.write('linked\n');
};
subscriber.subscribe(CHANNEL).then(() => { subscribed = true; announce(); });
app.listen(0, (listenSocket) => {
  if (!listenSocket) process.exit(1);
  process.stdout.write(`listening on ${uWS.us_socket_local_port(listenSocket)}\n`);
  listening = true;
  announce();
});
