'use strict';
// Hostile: POST /echo announcing a 1 MiB body, sends 10 KiB of it, then ends its side of the connection. The
// server must close the connection; one still open after DROP_LIMIT_MS fails the soak.

const crypto = require('node:crypto');
const { postHead } = require('../lib/requests.js');
const { DROP_LIMIT_MS } = require('../lib/serverLimits.js');
const { awaitClose, collectAnswer, connectCounted, statusOf } = require('../lib/hostileSocket.js');
const { sleep } = require('../lib/timing.js');

const ANNOUNCED_BYTES = 1024 * 1024;
const SENT_BYTES = 10 * 1024;
const PAUSE_BETWEEN_MS = 100;

async function oneAbortedBody(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  const answer = collectAnswer(socket);
  socket.end(Buffer.concat([postHead('/echo', ANNOUNCED_BYTES), crypto.randomBytes(SENT_BYTES)]));
  const outcome = await awaitClose(socket, DROP_LIMIT_MS, ctx.stop);
  socket.destroy();
  if (outcome === 'stopped') {
    tally.note('abandoned at stop');
  } else if (outcome === 'timeout') {
    tally.failure('aborted body: connection not closed', `open ${DROP_LIMIT_MS / 1000} s after the client ended it`);
  } else {
    tally.correct();
    const status = statusOf(answer.text());
    tally.note(status ? `closed with ${status}` : 'closed without an answer');
  }
}

module.exports = {
  kind: 'aborted body (10 KiB of 1 MiB, FIN)',
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneAbortedBody(ctx, tally);
      await sleep(PAUSE_BETWEEN_MS);
    }
  },
};
