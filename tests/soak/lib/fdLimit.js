'use strict';
// How many idle connections a wave may open. Node has no getrlimit, so `ulimit -n` is read from a shell. The
// runner and the server each hold one descriptor per connection and share the limit (the server inherits it), so
// a wave stays under 80 % of it, minus a margin for everything else both processes have open.

const { execFileSync } = require('node:child_process');

const SHARE_OF_LIMIT = 0.8;
const MARGIN = 256;

function openFileLimit() {
  const text = execFileSync('bash', ['-c', 'ulimit -n'], { encoding: 'latin1' }).trim();
  return text === 'unlimited' ? Infinity : Number(text);
}

/** wanted, or less when the descriptor limit would not allow it. */
function cappedWaveSize(wanted) {
  return Math.max(0, Math.min(wanted, Math.floor(openFileLimit() * SHARE_OF_LIMIT) - MARGIN));
}

module.exports = { openFileLimit, cappedWaveSize };
