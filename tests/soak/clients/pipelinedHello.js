'use strict';
// Verifying: 16 GET /hello in one write, then exactly 16 answers, each checked, and not one more.

const { keepExchanging } = require('../lib/keepExchanging.js');
const { HELLO_REQUEST } = require('../lib/requests.js');
const { textAnswerProblem } = require('../lib/answers.js');

const REQUESTS_PER_WRITE = 16;
const PIPELINE = Buffer.concat(new Array(REQUESTS_PER_WRITE).fill(HELLO_REQUEST));

async function pipelineExchange(connection, tally) {
  tally.sent(REQUESTS_PER_WRITE);
  let answered = 0;
  try {
    await connection.write(PIPELINE);
    for (; answered < REQUESTS_PER_WRITE; answered++) {
      const problem = textAnswerProblem(await connection.nextResponse(), 'Hello world!');
      if (problem) {
        tally.failure('wrong answer in a pipeline of GET /hello', `answer ${answered + 1} of ${REQUESTS_PER_WRITE}: ${problem}`);
        return false;
      }
      tally.correct();
    }
  } catch (error) {
    tally.failure('missing answer in a pipeline of GET /hello', `answer ${answered + 1} of ${REQUESTS_PER_WRITE}: ${error.message}`);
    return false;
  }
  if (connection.unclaimedResponses > 0) {
    tally.failure('more answers than requests', `${connection.unclaimedResponses} extra after ${REQUESTS_PER_WRITE}`);
    return false;
  }
  return true;
}

module.exports = {
  kind: `pipelined GET /hello (${REQUESTS_PER_WRITE}/write)`,
  verifying: true,
  run: (ctx, tally) => keepExchanging(ctx, tally, (connection) => pipelineExchange(connection, tally)),
};
