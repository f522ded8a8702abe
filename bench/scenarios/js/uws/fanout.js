'use strict';
// Scenario ws/fanout on the uWebSockets.js API: a connection whose upgrade request has role=sub in its query
// subscribes to one topic when it opens; every message any other connection (the publisher) sends is published
// to that topic with app.publish, as it came, binary or text, without compression (as in cpp/fanout.cpp).
const { loadUwsApi, onListen } = require('./module');
const { fanoutBehavior, FANOUT_TOPIC } = require('./fanoutBehavior');

const { uWS, port } = loadUwsApi();
const app = uWS.App();
app
  .ws('/*', fanoutBehavior(uWS, (message, isBinary) => app.publish(FANOUT_TOPIC, message, isBinary)))
  .listen(port, onListen(uWS, port));
