'use strict';
// Hostile: requests GET /stream (8 MiB), reads a random amount of it (16 KiB to 4 MiB, every byte checked),
// then resets the connection (RST) while the server is still sending.

const { ResponseParser } = require('../lib/responseParser.js');
const { firstPatternMismatch } = require('../lib/bodyPattern.js');
const { getRequest } = require('../lib/requests.js');
const { closedPromise } = require('../lib/socketRegistry.js');
const { randomLogInt, sleep, sleepUnless } = require('../lib/timing.js');
const { connectCounted } = require('../lib/hostileSocket.js');

const PAUSE_BETWEEN_MS = 100;
const SILENCE_LIMIT_MS = 10_000;

async function oneReset(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  const resetAfter = randomLogInt(16 * 1024, 4 * 1024 * 1024);
  let mismatch = -1;
  let reset = false;
  const parser = new ResponseParser(() => {});
  parser.setBodySink((piece, offset) => {
    if (mismatch < 0) mismatch = firstPatternMismatch(piece, offset);
    if (offset + piece.length >= resetAfter && !reset) {
      reset = true;
      socket.resetAndDestroy();
    }
  });
  socket.on('data', (chunk) => {
    try {
      parser.push(chunk);
    } catch (error) {
      tally.failure('bad answer to GET /stream before a reset', error.message);
      socket.destroy();
    }
  });
  socket.write(getRequest('/stream'));
  await sleepUnless(SILENCE_LIMIT_MS, closedPromise(socket), ctx.stop.promise);
  socket.destroy();
  if (mismatch >= 0) tally.failure('wrong bytes before a reset', `byte ${mismatch} of /stream`);
  else if (reset) tally.correct();
  else tally.error(ctx.stop.stopped ? 'abandoned at stop' : 'closed or silent before the reset');
}

module.exports = {
  kind: 'RST mid-response (GET /stream)',
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneReset(ctx, tally);
      await sleep(PAUSE_BETWEEN_MS);
    }
  },
};
