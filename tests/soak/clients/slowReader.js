'use strict';
// Hostile: a slow reader. Requests GET /stream (8 MiB) and reads 2 KiB every 250 ms. The server may drop it
// (its stalled-write timeout) or keep feeding it; either way every byte that arrives must be right.

const { ResponseParser } = require('../lib/responseParser.js');
const { firstPatternMismatch } = require('../lib/bodyPattern.js');
const { getRequest } = require('../lib/requests.js');
const { closedPromise, closeReason } = require('../lib/socketRegistry.js');
const { sleepUnless } = require('../lib/timing.js');
const { connectCounted } = require('../lib/hostileSocket.js');

const BYTES_PER_READ = 2048;
const READ_INTERVAL_MS = 250;

async function oneSlowRead(ctx, tally) {
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
  const closed = closedPromise(socket);
  // No 'data' listener: the socket stays paused and read() takes bytes from it a little at a time.
  socket.write(getRequest('/stream'));
  try {
    while (!socket.closed && !complete && !ctx.stop.stopped) {
      await sleepUnless(READ_INTERVAL_MS, closed, ctx.stop.promise);
      // read(0), when nothing is buffered, asks the socket for more and lets it notice the end of the stream.
      const available = socket.readableLength;
      const chunk = available > 0 ? socket.read(Math.min(BYTES_PER_READ, available)) : socket.read(0);
      if (chunk) parser.push(chunk);
    }
  } catch (error) {
    tally.failure('bad answer to a slow reader', error.message);
    socket.destroy();
    return;
  }
  socket.destroy();
  tally.note('KiB read', Math.round(bodyBytes / 1024));
  if (mismatch >= 0) {
    tally.failure('wrong bytes to a slow reader', `byte ${mismatch} of /stream`);
    return;
  }
  tally.correct();
  if (complete) tally.note('read it all');
  else if (ctx.stop.stopped) tally.note('still reading at stop');
  else tally.note(`dropped by the server (${closeReason(socket)})`);
}

module.exports = {
  kind: 'slow reader (GET /stream, 8 KiB/s)',
  verifying: false,
  run: async (ctx, tally) => { while (!ctx.stop.stopped) await oneSlowRead(ctx, tally); },
};
