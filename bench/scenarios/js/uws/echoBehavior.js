'use strict';
// The WebSocket behaviour of the ws/echo-* and wss/echo-20b servers on the uWebSockets.js API: every message is
// sent back as it came, binary or text, without compression.
const { MAX_MESSAGE_BYTES } = require('../common');

function echoBehavior(uWS) {
  return {
    compression: uWS.DISABLED,
    maxPayloadLength: MAX_MESSAGE_BYTES,
    message: (ws, message, isBinary) => {
      ws.send(message, isBinary);
    },
  };
}

module.exports = { echoBehavior };
