'use strict';
// Hostile: sends half a request (half a head, or a head and half its body), then resets the connection (RST).

const crypto = require('node:crypto');
const { getRequest, postHead } = require('../lib/requests.js');
const { randomInt, sleep } = require('../lib/timing.js');
const { connectCounted } = require('../lib/hostileSocket.js');

const PAUSE_BETWEEN_MS = 100;
const HEAD = getRequest('/hello', `X-Filler: ${'f'.repeat(1000)}\r\n`);
const BODY_BYTES = 64 * 1024;

const VARIANTS = [
  { name: 'half a head', bytes: () => HEAD.subarray(0, HEAD.length >> 1) },
  { name: 'half a body', bytes: () => Buffer.concat([postHead('/echo', BODY_BYTES), crypto.randomBytes(BODY_BYTES >> 1)]) },
];

async function oneReset(ctx, tally, variant) {
  const socket = await connectCounted(ctx, tally);
  if (!socket) return;
  socket.write(variant.bytes());
  await sleep(randomInt(0, 50));
  socket.resetAndDestroy();
  tally.correct();
  tally.note(variant.name);
}

async function run(ctx, tally) {
  for (let turn = 0; !ctx.stop.stopped; turn++) {
    await oneReset(ctx, tally, VARIANTS[turn % VARIANTS.length]);
    await sleep(PAUSE_BETWEEN_MS);
  }
}

module.exports = { kind: 'RST mid-request', verifying: false, run };
