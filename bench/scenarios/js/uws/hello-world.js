'use strict';
// Scenario http/hello-world on the uWebSockets.js API: every GET is answered with "Hello world!".
// With --http2 (loopwire's option), over HTTP/2 too (h2c/hello-*, and h2/hello-* given --key and --cert).
const { HELLO_WORLD } = require('../common');
const { loadUwsApi, onListen, scenarioApp } = require('./module');

const loaded = loadUwsApi();
const { uWS, port } = loaded;
scenarioApp(loaded)
  .get('/*', (res) => {
    res.end(HELLO_WORLD);
  })
  .listen(port, onListen(uWS, port));
