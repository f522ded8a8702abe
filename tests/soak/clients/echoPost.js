'use strict';
// Verifying: POST /echo with a random body (1 B to 1 MiB, sizes log-uniform), written in random-sized pieces
// (one in four in chunked transfer coding); the answer must be the same bytes, and its x-sha256 header, where
// the server sends one, the SHA-256 of the body as the server received it.

const crypto = require('node:crypto');
const { keepExchanging } = require('../lib/keepExchanging.js');
const { postHead, chunkedPostHead, chunkOf } = require('../lib/requests.js');
const { describe } = require('../lib/answers.js');
const { randomInt, randomLogInt } = require('../lib/timing.js');

const MAX_BODY_BYTES = 1024 * 1024;
const CHUNKED_SHARE = 0.25;

/** body split at random points into pieces of 1 byte up to a quarter of the body. */
function randomPieces(body) {
  const pieces = [];
  for (let offset = 0; offset < body.length;) {
    const length = randomLogInt(1, Math.max(1, body.length >> 2));
    pieces.push(body.subarray(offset, offset + length));
    offset += length;
  }
  return pieces;
}

/** Writes the request, a piece per write, yielding to the loop now and then so pieces leave separately. */
async function sendEcho(connection, body, chunked) {
  await connection.write(chunked ? chunkedPostHead('/echo') : postHead('/echo', body.length));
  for (const piece of randomPieces(body)) {
    await connection.write(chunked ? chunkOf(piece) : piece);
    if (randomInt(0, 3) === 0) await new Promise(setImmediate);
  }
  if (chunked) await connection.write(chunkOf(Buffer.alloc(0)));
}

function echoProblem(response, body) {
  if (response.status !== 200) return `status ${describe(response)}`;
  if (!response.body.equals(body)) {
    let at = 0;
    while (at < body.length && response.body[at] === body[at]) at++;
    return `echo of ${body.length} bytes differs from byte ${at} (got ${response.body.length} bytes)`;
  }
  const sha = response.headers['x-sha256'];
  if (sha !== undefined && sha !== crypto.createHash('sha256').update(body).digest('hex')) {
    return `x-sha256 ${sha} is not the SHA-256 of the ${body.length} bytes sent`;
  }
  return null;
}

async function echoExchange(connection, tally) {
  const body = crypto.randomBytes(randomLogInt(1, MAX_BODY_BYTES));
  const chunked = Math.random() < CHUNKED_SHARE;
  const what = `${body.length}-byte ${chunked ? 'chunked ' : ''}body`;
  tally.sent();
  try {
    await sendEcho(connection, body, chunked);
    const response = await connection.nextResponse();
    const problem = echoProblem(response, body);
    if (problem) {
      tally.failure('wrong echo', `${what}: ${problem}`);
      return false;
    }
    tally.note(response.headers['x-sha256'] === undefined ? 'no x-sha256 header' : 'x-sha256 checked');
  } catch (error) {
    tally.failure('no echo', `${what}: ${error.message}`);
    return false;
  }
  tally.correct();
  if (chunked) tally.note('chunked');
  return true;
}

module.exports = {
  kind: 'POST /echo 1 B..1 MiB, in pieces',
  verifying: true,
  run: (ctx, tally) => keepExchanging(ctx, tally, (connection) => echoExchange(connection, tally)),
};
