'use strict';
// Scenario ws/fanout on the uWebSockets.js API: a connection whose upgrade request has role=sub in its query
// subscribes to one topic when it opens; every message any other connection (the publisher) sends is published
// to that topic with app.publish, as it came, binary or text, without compression (as in cpp/fanout.cpp).
const { MAX_MESSAGE_BYTES, FANOUT_TOPIC, FANOUT_MAX_BACKPRESSURE_BYTES } = require('../common');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port } = loadUwsApi();
const app = uWS.App();
app
  .ws('/*', {
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
  })
  .listen(port, onListen(uWS, port));
