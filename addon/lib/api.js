'use strict';
// The public module: the native API, plus the parts uWebSockets.js v20 also writes in JavaScript.

const { COMPRESSION } = require('./compression.js');
const { DeclarativeResponse } = require('./DeclarativeResponse.js');
const { getParts } = require('./getParts.js');

/** Builds the exports of the package around one native module (the normal or the counting build). */
function createApi(native) {
  const api = {
    App: native.App,
    SSLApp: native.SSLApp,
    us_listen_socket_close: native.us_listen_socket_close,
    us_socket_local_port: native.us_socket_local_port,
    LIBUS_LISTEN_EXCLUSIVE_PORT: native.LIBUS_LISTEN_EXCLUSIVE_PORT,
    getParts,
    DeclarativeResponse,
    ...COMPRESSION,
  };
  if (typeof native._counters === 'function') api._counters = native._counters;
  // `import uWS from 'loopwire'` compiled by TypeScript without esModuleInterop reads require('loopwire').default.
  Object.defineProperty(api, 'default', { value: api });
  return api;
}

module.exports = { createApi };
