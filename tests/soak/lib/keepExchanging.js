'use strict';
// The loop of every verifying client: exchanges requests and answers on one keep-alive connection until the
// session stops; after a failed exchange the connection is dropped and the next exchange starts on a new one.

const { HttpConnection } = require('./httpConnection.js');
const { sleepUnless } = require('./timing.js');

const RECONNECT_PAUSE_MS = 200;

/**
 * exchange(connection) sends, awaits and checks; it records its results in the tally itself and returns false
 * when the connection should not be used again. A stop lets the exchange in progress finish.
 */
async function keepExchanging(ctx, tally, exchange) {
  while (!ctx.stop.stopped) {
    let connection;
    try {
      connection = await HttpConnection.open(ctx.sockets, ctx.port);
    } catch (error) {
      tally.failure('could not connect', error.message);
      await sleepUnless(RECONNECT_PAUSE_MS, ctx.stop.promise);
      continue;
    }
    try {
      while (!ctx.stop.stopped && await exchange(connection));
    } finally {
      connection.close();
    }
  }
}

module.exports = { keepExchanging };
