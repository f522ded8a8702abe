'use strict';
// Hostile: random bytes (16 B to 4 KiB) instead of a request. The server must answer an error (400) and
// close, or just close; a success status, or a connection still open after DROP_LIMIT_MS, fails the soak.

const crypto = require('node:crypto');
const { DROP_LIMIT_MS } = require('../lib/serverLimits.js');
const { awaitClose, collectAnswer, connectCounted, statusOf } = require('../lib/hostileSocket.js');
const { randomLogInt, sleep } = require('../lib/timing.js');

const PAUSE_BETWEEN_MS = 100;

async function oneGarbage(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  const answer = collectAnswer(socket);
  const garbage = crypto.randomBytes(randomLogInt(16, 4096));
  socket.write(garbage);
  const outcome = await awaitClose(socket, DROP_LIMIT_MS, ctx.stop);
  socket.destroy();
  const status = statusOf(answer.text());
  if (outcome === 'stopped') {
    tally.note('abandoned at stop');
  } else if (status !== null && status < 400) {
    tally.failure('garbage answered with a non-error status', `status ${status} to ${garbage.toString('hex', 0, 16)}...`);
  } else if (outcome === 'timeout') {
    tally.failure('garbage: connection not closed', `open after ${DROP_LIMIT_MS / 1000} s; sent ${garbage.toString('hex', 0, 16)}...`);
  } else {
    tally.correct();
    tally.note(status ? `closed with ${status}` : 'closed without an answer');
  }
}

module.exports = {
  kind: 'garbage bytes',
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneGarbage(ctx, tally);
      await sleep(PAUSE_BETWEEN_MS);
    }
  },
};
