'use strict';
// Hostile: a slowloris. Sends a request head one byte every 300 ms and never finishes it. The server must drop
// the connection (408, or just a close) within its head timeout; one still open after DROP_LIMIT_MS fails the
// soak.

const { DROP_LIMIT_MS } = require('../lib/serverLimits.js');
const { closedPromise } = require('../lib/socketRegistry.js');
const { collectAnswer, connectCounted, statusOf } = require('../lib/hostileSocket.js');
const { sleepUnless } = require('../lib/timing.js');

const HEAD = Buffer.from(`GET /hello HTTP/1.1\r\nHost: soak\r\nX-Slow: ${'s'.repeat(4096)}`, 'latin1');
const BYTE_INTERVAL_MS = 300;

async function oneSlowloris(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  const answer = collectAnswer(socket);
  const closed = closedPromise(socket);
  const started = Date.now();
  for (let sent = 0; !socket.closed; sent++) {
    if (ctx.stop.stopped) {
      tally.note('abandoned at stop');
      socket.destroy();
      return;
    }
    if (Date.now() - started > DROP_LIMIT_MS) {
      tally.failure('slowloris not dropped', `still open after ${DROP_LIMIT_MS / 1000} s (${sent} bytes sent)`);
      socket.destroy();
      return;
    }
    socket.write(HEAD.subarray(sent % HEAD.length, sent % HEAD.length + 1));
    await sleepUnless(BYTE_INTERVAL_MS, closed, ctx.stop.promise);
  }
  tally.correct();
  const status = statusOf(answer.text());
  tally.note(status ? `dropped with ${status}` : 'dropped without an answer');
  tally.max('longest life (s)', Math.round((Date.now() - started) / 1000));
}

module.exports = {
  kind: 'slowloris (1 head byte / 300 ms)',
  verifying: false,
  run: async (ctx, tally) => { while (!ctx.stop.stopped) await oneSlowloris(ctx, tally); },
};
