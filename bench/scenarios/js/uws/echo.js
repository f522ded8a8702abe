'use strict';
// Scenarios ws/echo-* on the uWebSockets.js API: every message is sent back as it came, binary or text, without
// compression.
const { echoBehavior } = require('./echoBehavior');
const { loadUwsApi, onListen } = require('./module');

const { uWS, port } = loadUwsApi();
uWS.App().ws('/*', echoBehavior(uWS)).listen(port, onListen(uWS, port));
