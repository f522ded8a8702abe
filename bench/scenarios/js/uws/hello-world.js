'use strict';
// Scenario http/hello-world on the uWebSockets.js API: every GET is answered with "Hello world!".
const { HELLO_WORLD } = require('../common');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port } = loadUwsApi();
uWS
  .App()
  .get('/*', (res) => {
    res.end(HELLO_WORLD);
  })
  .listen(port, onListen(uWS, port));
