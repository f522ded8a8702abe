'use strict';
// Verifying: "/deferred + 50 x /hello + /deferred" in one write, all 52 answers in order. Every other pipeline
// is heavy: each /hello carries a 400-byte header, so about 21 KiB of requests wait behind the first /deferred
// (more than the server reads in one go).

const { keepExchanging } = require('../lib/keepExchanging.js');
const { getRequest } = require('../lib/requests.js');
const { textAnswerProblem } = require('../lib/answers.js');

const HELLOS_PER_PIPELINE = 50;
const PAD_HEADER = `X-Pad: ${'p'.repeat(400)}\r\n`;

function pipelineOf(helloRequest) {
  const requests = [getRequest('/deferred'), ...new Array(HELLOS_PER_PIPELINE).fill(helloRequest), getRequest('/deferred')];
  const expected = ['deferred', ...new Array(HELLOS_PER_PIPELINE).fill('Hello world!'), 'deferred'];
  const bytes = Buffer.concat(requests);
  return { bytes, expected, name: `${(bytes.length / 1024).toFixed(1)} KiB pipeline` };
}

const LIGHT = pipelineOf(getRequest('/hello'));
const HEAVY = pipelineOf(getRequest('/hello', PAD_HEADER));
const previousPipelineOn = new WeakMap();  // connection -> name of the pipeline it carried last

async function deferredExchange(connection, tally, pipeline) {
  const count = pipeline.expected.length;
  // A failure may come from what went before on the same connection: the message says what that was.
  const previous = previousPipelineOn.get(connection);
  const after = previous ? `after a ${previous}` : 'first on its connection';
  previousPipelineOn.set(connection, pipeline.name);
  tally.sent(count);
  let answered = 0;
  try {
    await connection.write(pipeline.bytes);
    for (; answered < count; answered++) {
      const problem = textAnswerProblem(await connection.nextResponse(), pipeline.expected[answered]);
      if (problem) {
        tally.failure(`wrong answer in a ${pipeline.name} (${after})`, `answer ${answered + 1} of ${count}: ${problem}`);
        return false;
      }
      tally.correct();
    }
  } catch (error) {
    tally.failure(`missing answer in a ${pipeline.name} (${after})`,
      `answer ${answered + 1} of ${count} (${pipeline.expected[answered]}): ${error.message}`);
    return false;
  }
  tally.note(`${pipeline.name}s answered`);
  return true;
}

async function run(ctx, tally) {
  let turn = 0;
  await keepExchanging(ctx, tally, (connection) => deferredExchange(connection, tally, turn++ % 2 ? HEAVY : LIGHT));
}

module.exports = { kind: '/deferred + 50 x /hello + /deferred', verifying: true, run };
