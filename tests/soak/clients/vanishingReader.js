'use strict';
// Hostile: a vanishing reader. Requests a 64 MiB GET /stream, reads 64 KiB, then stops reading with the socket
// left open. The server must drop it (its stalled-write timeout). After HOLD_MS the client reads again to find
// out: a body that ends early means the server dropped the connection; the whole 64 MiB (more than every
// socket buffer on the way holds) means it never did, and fails the soak.

const { ResponseParser } = require('../lib/responseParser.js');
const { firstPatternMismatch } = require('../lib/bodyPattern.js');
const { getRequest } = require('../lib/requests.js');
const { DROP_LIMIT_MS } = require('../lib/serverLimits.js');
const { closedPromise } = require('../lib/socketRegistry.js');
const { sleepUnless } = require('../lib/timing.js');
const { connectCounted } = require('../lib/hostileSocket.js');

const STREAM_BYTES = 64 * 1024 * 1024;
const BYTES_BEFORE_VANISHING = 64 * 1024;
const HOLD_MS = DROP_LIMIT_MS + 2_000;
const SILENCE_LIMIT_MS = 5_000;

/** Resolves once predicate() holds, the socket closes, or nothing arrives for SILENCE_LIMIT_MS. */
async function readUntil(socket, predicate, progress) {
  const closed = closedPromise(socket);
  let lastProgress = progress();
  let lastChange = Date.now();
  while (!predicate() && !socket.closed && Date.now() - lastChange < SILENCE_LIMIT_MS) {
    await sleepUnless(50, closed);
    if (progress() !== lastProgress) {
      lastProgress = progress();
      lastChange = Date.now();
    }
  }
}

async function oneVanishingReader(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  let mismatch = -1;
  let bodyBytes = 0;
  let complete = false;
  const parser = new ResponseParser(() => { complete = true; });
  parser.setBodySink((piece, offset) => {
    if (mismatch < 0) mismatch = firstPatternMismatch(piece, offset);
    bodyBytes = offset + piece.length;
  });
  socket.on('data', (chunk) => {
    try {
      parser.push(chunk);
    } catch (error) {
      tally.failure('bad answer to a vanishing reader', error.message);
      socket.destroy();
    }
    if (bodyBytes >= BYTES_BEFORE_VANISHING && !socket.vanished) {
      socket.vanished = true;
      socket.pause();
    }
  });
  socket.write(getRequest(`/stream?size=${STREAM_BYTES}`));
  await readUntil(socket, () => socket.vanished, () => bodyBytes);
  if (!socket.vanished) {
    tally.error(`no 64 KiB to read (${socket.closed ? 'closed' : 'silent'})`);
    socket.destroy();
    return;
  }
  await sleepUnless(HOLD_MS, ctx.stop.promise);
  if (ctx.stop.stopped) {
    tally.note('abandoned at stop');
    socket.destroy();
    return;
  }
  const bytesBeforeResume = bodyBytes;
  socket.resume();
  await readUntil(socket, () => complete, () => bodyBytes);
  const afterResumeMiB = ((bodyBytes - bytesBeforeResume) / (1024 * 1024)).toFixed(1);
  const closedEarly = socket.closed && !complete;
  socket.destroy();
  if (mismatch >= 0) tally.failure('wrong bytes to a vanishing reader', `byte ${mismatch} of /stream`);
  else if (closedEarly) {
    tally.correct();
    tally.note('dropped by the server');
    tally.max('MiB still buffered when dropped', Number(afterResumeMiB));
  } else if (complete) {
    tally.failure('vanishing reader not dropped',
      `the server sent the rest of the 64 MiB (${afterResumeMiB} MiB) after ${HOLD_MS / 1000} s without reads`);
  } else {
    tally.failure('vanishing reader not dropped', `after ${HOLD_MS / 1000} s without reads, the connection was open but silent`);
  }
}

module.exports = {
  kind: 'vanishing reader (stops after 64 KiB)',
  verifying: false,
  run: async (ctx, tally) => { while (!ctx.stop.stopped) await oneVanishingReader(ctx, tally); },
};
