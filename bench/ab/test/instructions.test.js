'use strict';
// Reading callgrind totals and turning two runs into instructions per request.
const test = require('node:test');
const assert = require('node:assert/strict');
const { NODE_SEED_FLAGS, parseCallgrindTotal, perRequest, seededArgv } = require('../instructions');

test('the totals line of a callgrind file', () => {
  const text = '# callgrind format\nversion: 1\ncmd: server\nevents: Ir\nfn=main\n0 12\nsummary: 7104002\n' +
    'totals: 7104002\n';
  assert.equal(parseCallgrindTotal(text), 7104002);
  assert.equal(parseCallgrindTotal('events: Ir\nsummary: 99\n'), 99);
  assert.throws(() => parseCallgrindTotal('events: Ir\n'), /no totals/);
});

test('startup cancels: the difference of two runs over the difference of their request counts', () => {
  const startup = 5_000_000;
  const cost = 4321;
  const runs = [1000, 3000].map((requests) => ({ requests, instructions: startup + requests * cost }));
  assert.equal(perRequest(runs), cost);
});

test('a Node server runs with fixed V8 seeds; any other server as it is', () => {
  assert.deepEqual(seededArgv([process.execPath, 'server.js', '--port', '0']),
    [process.execPath, ...NODE_SEED_FLAGS, 'server.js', '--port', '0']);
  assert.deepEqual(seededArgv(['/opt/node-24/bin/node', 'server.js']), ['/opt/node-24/bin/node', ...NODE_SEED_FLAGS, 'server.js']);
  assert.deepEqual(seededArgv(['build/bench/scenarios/hello-world', '--port', '0']),
    ['build/bench/scenarios/hello-world', '--port', '0']);
  assert.deepEqual(seededArgv(['sh', '-c', 'exec node server.js']), ['sh', '-c', 'exec node server.js']);
  for (const flag of NODE_SEED_FLAGS) assert.match(flag, /^--(hash|random)-seed=[1-9]\d*$/, 'a seed of 0 means random');
});
