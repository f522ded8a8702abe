'use strict';
// Scenarios ws/echo-* on the uWebSockets.js API: every message is sent back as it came, binary or text, without
// compression.
const { MAX_MESSAGE_BYTES } = require('../common');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port } = loadUwsApi();
uWS
  .App()
  .ws('/*', {
    compression: uWS.DISABLED,
    maxPayloadLength: MAX_MESSAGE_BYTES,
    message: (ws, message, isBinary) => {
      ws.send(message, isBinary);
    },
  })
  .listen(port, onListen(uWS, port));
