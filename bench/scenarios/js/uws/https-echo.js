'use strict';
// Scenario wss/echo-20b on the uWebSockets.js API: ws/echo-* over TLS, from an SSLApp given the key and
// certificate files of --key and --cert (a module whose SSLApp throws is skipped, see sslApp).
const { echoBehavior } = require('./echoBehavior');
const { loadUwsApi, onListen, sslApp } = require('./module');

const { uWS, port, key, cert } = loadUwsApi({ tls: true });
sslApp(uWS, key, cert).ws('/*', echoBehavior(uWS)).listen(port, onListen(uWS, port));
