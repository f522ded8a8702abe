'use strict';
// Hostile: a wave of idle connections (ctx.idleWaveSize of them: 5,000 in the full run, 500 with --short,
// fewer when `ulimit -n` is low), opened in batches, held for 4 s without a byte, then all released at once.
// A new wave follows 10 s later.

const { sleepUnless } = require('../lib/timing.js');

const CONNECT_BATCH = 200;
const HOLD_MS = 4_000;
const PAUSE_BETWEEN_WAVES_MS = 10_000;

async function openWave(ctx, tally, size) {
  const sockets = [];
  for (let opened = 0; opened < size && !ctx.stop.stopped; opened += CONNECT_BATCH) {
    const batch = Math.min(CONNECT_BATCH, size - opened);
    tally.sent(batch);
    const results = await Promise.allSettled(Array.from({ length: batch }, () => ctx.sockets.connect(ctx.port)));
    for (const result of results) {
      if (result.status === 'fulfilled') sockets.push(result.value);
      else tally.error('could not connect');
    }
  }
  return sockets;
}

async function oneWave(ctx, tally) {
  const sockets = await openWave(ctx, tally, ctx.idleWaveSize);
  await sleepUnless(HOLD_MS, ctx.stop.promise);
  const held = sockets.filter((socket) => !socket.closed).length;
  tally.correct(held);
  for (let i = held; i < sockets.length; i++) tally.error('closed by the server while idle');
  for (const socket of sockets) socket.destroy();
  tally.note('waves');
  tally.max('largest wave', sockets.length);
}

module.exports = {
  kind: 'idle connection waves',
  verifying: false,
  run: async (ctx, tally) => {
    while (!ctx.stop.stopped) {
      await oneWave(ctx, tally);
      await sleepUnless(PAUSE_BETWEEN_WAVES_MS, ctx.stop.promise);
    }
  },
};
