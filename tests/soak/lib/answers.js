'use strict';
// Checks of the answers the verifying clients receive: each returns null when the answer is right, or what is
// wrong with it, in words short enough for the report.

function describe(response) {
  const body = response.body === null ? `${response.bodyLength} streamed bytes` : JSON.stringify(
    response.body.toString('latin1', 0, 40) + (response.body.length > 40 ? '...' : ''));
  return `${response.status} ${body}`;
}

/** A 200 whose body is exactly `text`. */
function textAnswerProblem(response, text) {
  if (response.status === 200 && response.body !== null && response.body.toString('latin1') === text) return null;
  return `expected 200 ${JSON.stringify(text)}, got ${describe(response)}`;
}

module.exports = { textAnswerProblem, describe };
