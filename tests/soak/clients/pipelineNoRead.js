'use strict';
// Hostile: one connection writes pipelined GET /hello as fast as the socket takes them, for 4 s, without ever
// reading an answer; then it stops writing, holds the connection 3 s, and closes it. A server that keeps reading
// requests it cannot answer grows without bound: the RSS check catches it. The writing stops early when the
// session says the server's memory is running away (ctx.serverRunaway()), so that such a defect cannot exhaust
// the machine.

const { HELLO_REQUEST } = require('../lib/requests.js');
const { sleep, sleepUnless } = require('../lib/timing.js');
const { connectCounted } = require('../lib/hostileSocket.js');

const REQUESTS_PER_WRITE = 64;
const BATCH = Buffer.concat(new Array(REQUESTS_PER_WRITE).fill(HELLO_REQUEST));
const WRITE_MS = 4_000;
const HOLD_MS = 3_000;
const PAUSE_BETWEEN_MS = 10_000;
const DRAIN_POLL_MS = 20;
const WRITES_BETWEEN_YIELDS = 16;

async function oneFlood(ctx, tally) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  // No 'data' listener: the socket stays paused, so nothing past Node's small read buffer is ever read.
  const started = Date.now();
  let writes = 0;
  while (Date.now() - started < WRITE_MS && !ctx.stop.stopped && !socket.closed && !ctx.serverRunaway()) {
    if (socket.writableNeedDrain) {
      await sleep(DRAIN_POLL_MS);
      continue;
    }
    socket.write(BATCH);
    if (++writes % WRITES_BETWEEN_YIELDS === 0) await new Promise(setImmediate);
  }
  tally.note('requests written', writes * REQUESTS_PER_WRITE);
  if (ctx.serverRunaway()) tally.note('stopped early: server memory running away');
  await sleepUnless(HOLD_MS, ctx.stop.promise);
  if (socket.closed) tally.note('closed by the server');
  socket.destroy();
  tally.correct();
}

module.exports = {
  kind: 'pipelining without reading',
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneFlood(ctx, tally);
      await sleepUnless(PAUSE_BETWEEN_MS, ctx.stop.promise);
    }
  },
};
