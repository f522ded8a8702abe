'use strict';
// Scenario http/cached on the uWebSockets.js API: GET /cached answers with a ~1 KB page prepared at startup.
const { cachedPage } = require('../common');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port } = loadUwsApi();
const page = cachedPage();
uWS
  .App()
  .get('/cached', (res) => {
    res.writeHeader('Content-Type', 'text/plain; charset=utf-8').end(page);
  })
  .listen(port, onListen(uWS, port));
