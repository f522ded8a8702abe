'use strict';
// Scenario https/hello-world on the uWebSockets.js API: http/hello-world over TLS, from an SSLApp given the key
// and certificate files of --key and --cert. A module whose SSLApp throws (a loopwire without TLS) cannot run this
// scenario: the server says so and exits with UNAVAILABLE_EXIT_STATUS, and the runner skips it.
const { HELLO_WORLD, UNAVAILABLE_EXIT_STATUS } = require('../common');
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
  .get('/*', (res) => {
    res.end(HELLO_WORLD);
  })
  .listen(port, onListen(uWS, port));
