'use strict';
// Hostile: a request head of over 64 KiB (64 headers of 1 KiB each). The server must answer 431 and close; a success
// status, or a connection still open after DROP_LIMIT_MS, fails the soak.

const { getRequest } = require('../lib/requests.js');
const { DROP_LIMIT_MS } = require('../lib/serverLimits.js');
const { awaitClose, collectAnswer, connectCounted, statusOf } = require('../lib/hostileSocket.js');
const { closeReason } = require('../lib/socketRegistry.js');
const { sleep } = require('../lib/timing.js');

const HEADER_COUNT = 64;
const HEADER_VALUE = 'h'.repeat(1024);
const HEAD = getRequest('/hello', Array.from({ length: HEADER_COUNT }, (_, i) => `X-Big-${i}: ${HEADER_VALUE}\r\n`).join(''));
const PAUSE_BETWEEN_MS = 200;

async function oneOversizedHead(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  const answer = collectAnswer(socket);
  socket.write(HEAD);
  const outcome = await awaitClose(socket, DROP_LIMIT_MS, ctx.stop);
  socket.destroy();
  const status = statusOf(answer.text());
  if (outcome === 'stopped') tally.note('abandoned at stop');
  else if (status !== null && status < 300) tally.failure('oversized head answered with success', `status ${status}`);
  else if (outcome === 'timeout') tally.failure('oversized head: connection not closed', `open after ${DROP_LIMIT_MS / 1000} s`);
  else if (status === 431) tally.correct();
  else tally.error(status ? `answered ${status}` : `closed without an answer (${closeReason(socket)})`);
}

module.exports = {
  kind: `oversized head (${HEADER_COUNT} x 1 KiB headers)`,
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneOversizedHead(ctx, tally);
      await sleep(PAUSE_BETWEEN_MS);
    }
  },
};
