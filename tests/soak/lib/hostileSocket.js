'use strict';
// Helpers for the hostile clients, which talk to the server over raw sockets and only watch what it does:
// the bytes it sends back and whether (and when) it closes the connection.

const { closedPromise } = require('./socketRegistry.js');
const { sleepUnless } = require('./timing.js');

const KEPT_ANSWER_BYTES = 64 * 1024;

/** Opens a connection for one attempt of a client kind: counts it as sent, or as an error (resolving null). */
async function connectCounted(ctx, tally) {
  try {
    const socket = await ctx.sockets.connect(ctx.port);
    tally.sent();
    return socket;
  } catch (error) {
    tally.error('could not connect');
    return null;
  }
}

/** Collects what the server sends on socket (its first 64 KiB); `.text()` gives it as latin1. */
function collectAnswer(socket) {
  const chunks = [];
  let kept = 0;
  socket.on('data', (chunk) => {
    if (kept >= KEPT_ANSWER_BYTES) return;
    chunks.push(chunk);
    kept += chunk.length;
  });
  return { text: () => Buffer.concat(chunks).toString('latin1') };
}

/** The status code at the start of an answer, or null when there is none. */
function statusOf(text) {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return match ? Number(match[1]) : null;
}

/** Waits until socket closes ('closed'), limitMs pass ('timeout') or the session stops ('stopped'). */
async function awaitClose(socket, limitMs, stop) {
  await sleepUnless(limitMs, closedPromise(socket), stop.promise);
  if (socket.closed) return 'closed';
  return stop.stopped ? 'stopped' : 'timeout';
}

module.exports = { connectCounted, collectAnswer, statusOf, awaitClose };
