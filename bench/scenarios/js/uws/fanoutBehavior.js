'use strict';
// The WebSocket behaviour of every ws/fanout and cluster/fanout server on the uWebSockets.js API: a connection
// whose upgrade request has role=sub in its query subscribes to FANOUT_TOPIC when it opens; what any other
// connection (the publisher) sends goes to onPublisherMessage(message, isBinary), which publishes it. No
// compression (as in cpp/fanout.cpp), and backpressure far above what lwload's window can queue.
const { MAX_MESSAGE_BYTES, FANOUT_TOPIC, FANOUT_MAX_BACKPRESSURE_BYTES } = require('../common');

function fanoutBehavior(uWS, onPublisherMessage) {
  return {
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
      if (!ws.getUserData().subscriber) onPublisherMessage(message, isBinary);
    },
  };
}

module.exports = { fanoutBehavior, FANOUT_TOPIC };
