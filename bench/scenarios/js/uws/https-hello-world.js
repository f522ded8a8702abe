'use strict';
// Scenario https/hello-world on the uWebSockets.js API: http/hello-world over TLS, from an SSLApp given the key
// and certificate files of --key and --cert (a module whose SSLApp throws is skipped, see sslApp).
const { HELLO_WORLD } = require('../common');
const { loadUwsApi, onListen, sslApp } = require('./module');

const { uWS, port, key, cert } = loadUwsApi({ tls: true });
sslApp(uWS, key, cert)
  .get('/*', (res) => {
    res.end(HELLO_WORLD);
  })
  .listen(port, onListen(uWS, port));
