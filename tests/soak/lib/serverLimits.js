'use strict';
// The soak servers run with the default ServerOptions (core/include/loopwire/App.h): every timeout (idle,
// request head, request body, stalled write) is 10 s, and deadlines are checked every 4 s, so a connection the
// server must drop is gone at most 14 s after it deserved it. The clients allow a little more.

const SERVER_TIMEOUT_MS = 10_000;
const SWEEP_INTERVAL_MS = 4_000;
const MARGIN_MS = 4_000;

/** How long a hostile connection may live after the server should have started counting against it. */
const DROP_LIMIT_MS = SERVER_TIMEOUT_MS + SWEEP_INTERVAL_MS + MARGIN_MS;

module.exports = { SERVER_TIMEOUT_MS, SWEEP_INTERVAL_MS, DROP_LIMIT_MS };
