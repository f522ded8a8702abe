'use strict';
// Verifying: GET /stream (8 MiB; one in four a random size up to 2 MiB), every byte checked against the pattern
// as it arrives.

const { keepExchanging } = require('../lib/keepExchanging.js');
const { getRequest } = require('../lib/requests.js');
const { firstPatternMismatch } = require('../lib/bodyPattern.js');
const { randomLogInt } = require('../lib/timing.js');

const DEFAULT_STREAM_BYTES = 8 * 1024 * 1024;
const RANDOM_SIZE_SHARE = 0.25;
const MAX_RANDOM_BYTES = 2 * 1024 * 1024;

async function streamExchange(connection, tally) {
  const randomSize = Math.random() < RANDOM_SIZE_SHARE;
  const size = randomSize ? randomLogInt(1, MAX_RANDOM_BYTES) : DEFAULT_STREAM_BYTES;
  const path = randomSize ? `/stream?size=${size}` : '/stream';
  let mismatch = -1;
  connection.setBodySink((piece, offset) => {
    if (mismatch < 0) mismatch = firstPatternMismatch(piece, offset);
  });
  tally.sent();
  try {
    await connection.write(getRequest(path));
    const response = await connection.nextResponse();
    let problem = null;
    if (response.status !== 200) problem = `status ${response.status}`;
    else if (response.bodyLength !== size) problem = `content-length ${response.bodyLength}`;
    else if (mismatch >= 0) problem = `wrong byte at offset ${mismatch}`;
    if (problem) {
      tally.failure('wrong answer to GET /stream', `${path}: ${problem}`);
      return false;
    }
  } catch (error) {
    tally.failure('incomplete answer to GET /stream', `${path}: ${error.message}`);
    return false;
  }
  tally.correct();
  tally.note('GiB checked', size / (1024 * 1024 * 1024));
  return true;
}

module.exports = {
  kind: 'GET /stream 8 MiB, every byte',
  verifying: true,
  run: (ctx, tally) => keepExchanging(ctx, tally, (connection) => streamExchange(connection, tally)),
};
