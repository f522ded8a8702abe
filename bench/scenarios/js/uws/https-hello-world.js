'use strict';
// Scenario https/hello-world on the uWebSockets.js API: http/hello-world over TLS, from an SSLApp given the key
// and certificate files of --key and --cert (a module whose SSLApp throws is skipped, see sslApp). With --http2
// (loopwire's option), HTTP/2 by ALPN beside HTTP/1.1 (bench/scripts/h2-vs-pipelined.sh loads it both ways).
const { HELLO_WORLD } = require('../common');
const { loadUwsApi, onListen, scenarioApp } = require('./module');

const loaded = loadUwsApi({ tls: true });
const { uWS, port } = loaded;
scenarioApp(loaded)
  .get('/*', (res) => {
    res.end(HELLO_WORLD);
  })
  .listen(port, onListen(uWS, port));
