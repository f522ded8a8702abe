'use strict';
// The runner's command line and what it refuses.
const test = require('node:test');
const assert = require('node:assert/strict');
const { DEFAULTS, UsageError, WORKTREE, parseArguments } = require('../args');
const { IMPLEMENTATIONS, SCENARIOS } = require('../../scenarios/scenarios');

const parse = (...argv) => parseArguments(argv, { scenarios: SCENARIOS, implementations: IMPLEMENTATIONS });

test('defaults: head is the working tree, every scenario, loopwire (C++), CPUs 0 and 1', () => {
  const s = parse('--base', 'main');
  assert.equal(s.base, 'main');
  assert.equal(s.head, WORKTREE);
  assert.equal(s.rounds, DEFAULTS.rounds);
  assert.equal(s.duration, DEFAULTS.duration);
  assert.equal(s.impl, 'loopwire-cpp');
  assert.equal(s.serverCpu, 0);
  assert.equal(s.loadCpu, 1);
  assert.deepEqual(s.scenarios, SCENARIOS.map((x) => x.name));
  assert.equal(s.instructions, false);
});

test('the acceptance command line', () => {
  const s = parse('--base', 'HEAD', '--head', 'HEAD', '--rounds', '3', '--duration', '2',
    '--scenarios', 'http/hello-world,http/cached');
  assert.equal(s.head, 'HEAD');
  assert.equal(s.rounds, 3);
  assert.equal(s.duration, 2);
  assert.deepEqual(s.scenarios, ['http/hello-world', 'http/cached']);
});

test('--vs takes an implementation or a command, and excludes --base', () => {
  assert.equal(parse('--vs', 'node-http').vs, 'node-http');
  assert.equal(parse('--vs', 'h2o -c conf').vs, 'h2o -c conf');
  assert.throws(() => parse('--vs', 'node-http', '--base', 'main'), UsageError);
  assert.throws(() => parse(), /--base/);
});

test('--vs takes the static-file servers, which --impl names too', () => {
  for (const vs of ['nginx', 'h2o', 'express-static', 'fastify-static']) {
    const s = parse('--vs', vs, '--impl', 'loopwire-js', '--scenarios', 'static/1kb,static/1mb,static/1mb-tls');
    assert.equal(s.vs, vs);
    assert.deepEqual(s.scenarios, ['static/1kb', 'static/1mb', 'static/1mb-tls']);
  }
  assert.equal(parse('--vs', 'nginx', '--impl', 'h2o').impl, 'h2o');
});

test('CPUs, instruction counts and warm-up', () => {
  const s = parse('--base', 'x', '--server-cpu', '2', '--load-cpu', '3', '--instructions',
    '--instructions-requests', '100,300', '--warmup', '0');
  assert.equal(s.serverCpu, 2);
  assert.equal(s.loadCpu, 3);
  assert.equal(s.instructions, true);
  assert.deepEqual(s.instructionsRequests, [100, 300]);
  assert.equal(s.warmup, 0);
});

test('refusals', () => {
  const refused = [
    ['--base', 'x', '--rounds', '0'],
    ['--base', 'x', '--rounds', '2.5'],
    ['--base', 'x', '--rounds', '1000'],
    ['--base', 'x', '--duration', '0'],
    ['--base', 'x', '--duration', 'abc'],
    ['--base', 'x', '--server-cpu', '1', '--load-cpu', '1'],
    ['--base', 'x', '--impl', 'apache'],
    ['--base', 'x', '--scenarios', 'http/nope'],
    ['--base', 'x', '--instructions-requests', '300,100'],
    ['--base', 'x', '--instructions-requests', '100'],
    ['--base', 'x', '--bogus'],
  ];
  for (const argv of refused) assert.throws(() => parse(...argv), UsageError, argv.join(' '));
});

test('--help', () => {
  assert.deepEqual(parse('--help'), { help: true });
});

test('--node takes a Node major version', () => {
  const { parseArguments, UsageError } = require('../args');
  const { SCENARIOS, IMPLEMENTATIONS } = require('../../scenarios/scenarios');
  const tables = { scenarios: SCENARIOS, implementations: IMPLEMENTATIONS };
  assert.equal(parseArguments(['--vs', 'uws', '--impl', 'loopwire-js', '--node', '24'], tables).node, 24);
  assert.equal(parseArguments(['--vs', 'uws'], tables).node, null);
  for (const bad of ['v24', '24.1', '17', '100', '']) {
    assert.throws(() => parseArguments(['--vs', 'uws', '--node', bad], tables), UsageError, bad);
  }
  assert.deepEqual(Object.entries(IMPLEMENTATIONS).filter(([, impl]) => impl.followsNodeOption).map(([name]) => name),
    ['loopwire-js', 'node-http', 'socketio', 'fastify-static', 'node-http2']);
});

test('an arm on another Node fills {node} with it and says so in its label', () => {
  const { fill, describeArm } = require('../arms');
  const arm = { side: 'head', kind: 'worktree', impl: 'loopwire-js', root: '/r', dirty: false,
    node: '/n/bin/node', nodeVersion: 'v24.1.0' };
  assert.equal(fill('{node}', arm), '/n/bin/node');
  assert.equal(fill('{node}', { ...arm, node: undefined }), process.execPath);
  assert.equal(describeArm(arm), 'loopwire-js @ working tree (Node v24.1.0)');
  assert.equal(describeArm({ ...arm, node: undefined, nodeVersion: undefined }), 'loopwire-js @ working tree');
  assert.equal(describeArm({ ...arm, vs: true }), 'loopwire-js (Node v24.1.0)');
});
