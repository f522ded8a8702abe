'use strict';
// Verifying: GET /hello after GET /hello on one keep-alive connection, each answer checked.

const { keepExchanging } = require('../lib/keepExchanging.js');
const { HELLO_REQUEST } = require('../lib/requests.js');
const { textAnswerProblem } = require('../lib/answers.js');

async function helloExchange(connection, tally) {
  tally.sent();
  try {
    await connection.write(HELLO_REQUEST);
    const problem = textAnswerProblem(await connection.nextResponse(), 'Hello world!');
    if (problem) {
      tally.failure('wrong answer to GET /hello', problem);
      return false;
    }
  } catch (error) {
    tally.failure('no answer to GET /hello', error.message);
    return false;
  }
  tally.correct();
  return true;
}

module.exports = {
  kind: 'keep-alive GET /hello',
  verifying: true,
  run: (ctx, tally) => keepExchanging(ctx, tally, (connection) => helloExchange(connection, tally)),
};
