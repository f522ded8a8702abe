'use strict';
// Scenario wss/echo-20b on the uWebSockets.js API: ws/echo-* over TLS, from an SSLApp given the key and
// certificate files of --key and --cert. A module whose SSLApp throws cannot run it: the server says so and exits
// with UNAVAILABLE_EXIT_STATUS, and the runner skips it.
const { MAX_MESSAGE_BYTES, UNAVAILABLE_EXIT_STATUS } = require('../common');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port, key, cert } = loadUwsApi({ tls: true });
let app;
try {
  app = uWS.SSLApp({ key_file_name: key, cert_file_name: cert });
} catch (error) {
  process.stderr.write(`SSLApp is not available: ${error.message}\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}
app
  .ws('/*', {
    compression: uWS.DISABLED,
    maxPayloadLength: MAX_MESSAGE_BYTES,
    message: (ws, message, isBinary) => {
      ws.send(message, isBinary);
    },
  })
  .listen(port, onListen(uWS, port));
