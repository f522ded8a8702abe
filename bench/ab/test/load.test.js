'use strict';
// The lwload command line each kind of scenario gets, and a run stopped at its time limit.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadArgs, errorCount, runLoad } = require('../load');
const { SCENARIOS } = require('../../scenarios/scenarios');

const scenario = (request, extra = {}) => ({
  name: 'x', connections: 100, pipeline: 1, ...extra, request: { mode: 'http', headers: {}, ...request },
});

test('a GET for a duration', () => {
  assert.deepEqual(loadArgs(scenario({ method: 'GET', path: '/' }), 4000, { seconds: 2 }),
    ['http', '-c', '100', '-d', '2s', 'http://127.0.0.1:4000/']);
});

test('headers, method, body file and pipelining', () => {
  const s = scenario({ method: 'POST', path: '/json?a=1', headers: { 'Content-Type': 'application/json' },
    bodyFile: '/tmp/body.json' }, { pipeline: 4, connections: 10 });
  assert.deepEqual(loadArgs(s, 1, { seconds: 0.5 }), ['http', '-c', '10', '-d', '0.5s', '-H',
    'Content-Type: application/json', '-p', '4', '-m', 'POST', '--body-file', '/tmp/body.json',
    'http://127.0.0.1:1/json?a=1']);
});

test('a request count, with connections overridden', () => {
  assert.deepEqual(loadArgs(scenario({ method: 'GET', path: '/' }), 5, { requests: 2000, connections: 1 }),
    ['http', '-c', '1', '-n', '2000', '-d', '600s', 'http://127.0.0.1:5/']);
});

test('a WebSocket echo', () => {
  const s = scenario({ mode: 'ws', path: '/', messageBytes: 4096 });
  assert.deepEqual(loadArgs(s, 9, { seconds: 3 }),
    ['ws', '-c', '100', '-d', '3s', '-s', '4096', '--binary', 'ws://127.0.0.1:9/']);
});

test('a WebSocket fan-out: the subscribers, the message and the window', () => {
  const s = scenario({ mode: 'fanout', path: '/', messageBytes: 20, window: 8 }, { connections: 1000 });
  assert.deepEqual(loadArgs(s, 9, { seconds: 2 }),
    ['fanout', '-c', '1000', '-d', '2s', '-s', '20', '--binary', '--window', '8', 'ws://127.0.0.1:9/']);
  assert.deepEqual(loadArgs(s, 9, { requests: 32, connections: 4 }),
    ['fanout', '-c', '4', '-n', '32', '-d', '600s', '-s', '20', '--binary', '--window', '8', 'ws://127.0.0.1:9/']);
});

test('a cluster fan-out sends every other subscriber to the second node', () => {
  const s = scenario({ mode: 'fanout', path: '/', messageBytes: 20, window: 8, split: true, settleMs: 250 },
    { connections: 1000 });
  assert.deepEqual(loadArgs(s, 9, { seconds: 2, splitPort: 10 }),
    ['fanout', '-c', '1000', '-d', '2s', '-s', '20', '--binary', '--window', '8', '--split-url', 'ws://127.0.0.1:10/',
      '--settle', '250', 'ws://127.0.0.1:9/']);
  assert.throws(() => loadArgs(s, 9, { seconds: 2 }), /split on/);
});

test('a server\'s load entry changes the request for it alone: socket.io\'s path and protocol', () => {
  const s = scenario({ mode: 'fanout', path: '/', messageBytes: 20, window: 8, split: true, settleMs: 250 },
    { connections: 10 });
  const load = { path: '/socket.io/?EIO=4&transport=websocket', socketIo: true };
  assert.deepEqual(loadArgs(s, 9, { seconds: 2, splitPort: 10, load }),
    ['fanout', '-c', '10', '-d', '2s', '-s', '20', '--socket-io', '--window', '8', '--split-url',
      'ws://127.0.0.1:10/socket.io/?EIO=4&transport=websocket', '--settle', '250',
      'ws://127.0.0.1:9/socket.io/?EIO=4&transport=websocket']);
  assert.equal(s.request.path, '/', 'the scenario itself is left as it was');
});

test('a handshake scenario reconnects after each request, offering the last session or not', () => {
  assert.deepEqual(loadArgs(scenario({ method: 'GET', path: '/', tls: true, reconnect: true, tlsResume: false },
    { connections: 20 }), 8443, { seconds: 2 }),
  ['http', '-c', '20', '-d', '2s', '--reconnect', '--tls-resume', 'off', 'https://127.0.0.1:8443/']);
  assert.deepEqual(loadArgs(scenario({ method: 'GET', path: '/', tls: true, reconnect: true, tlsResume: true },
    { connections: 20 }), 8443, { seconds: 2 }),
  ['http', '-c', '20', '-d', '2s', '--reconnect', 'https://127.0.0.1:8443/']);
});

test('a TLS scenario is loaded over https:// or wss://', () => {
  assert.deepEqual(loadArgs(scenario({ method: 'GET', path: '/', tls: true }), 8443, { seconds: 2 }),
    ['http', '-c', '100', '-d', '2s', 'https://127.0.0.1:8443/']);
  assert.deepEqual(loadArgs(scenario({ mode: 'ws', path: '/', messageBytes: 20, tls: true }), 8443, { seconds: 2 }),
    ['ws', '-c', '100', '-d', '2s', '-s', '20', '--binary', 'wss://127.0.0.1:8443/']);
});

test('errorCount adds every kind of error', () => {
  assert.equal(errorCount({ errors: { connect: 1, read: 0, write: 2, protocol: 0, timeout: 3, verify: 0 } }), 6);
  assert.equal(errorCount({ errors: { connect: 0, read: 0, write: 0, protocol: 0, timeout: 0, verify: 0, tls: 4 } }),
    4);
  assert.equal(errorCount({}), 0);
});

test('an lwload stopped at its time limit says so, though it exits with status 0 and its output is lost', async () => {
  // A stand-in for lwload that, like it, stops on SIGTERM with status 0; the limit is the grace time less 29.8 s.
  const stopsOnTerm = ['-c', 'trap "exit 0" TERM; sleep 5 & wait'];
  await assert.rejects(runLoad({ lwload: '/bin/sh', args: stopsOnTerm, expectedSeconds: -29.8 }),
    /stopped after 200 ms, its time limit/);
});

test('the 1 MiB static rows give callgrind a second per request, the compress rows a tenth', () => {
  const { VALGRIND_SECONDS_PER_REQUEST } = require('../instructions');
  for (const s of SCENARIOS) {
    const expected = s.name.startsWith('static/1mb') ? 1 : s.name.startsWith('compress/') ? 0.1 : undefined;
    assert.equal(s.callgrindSecondsPerRequest, expected, s.name);
  }
  assert.equal(VALGRIND_SECONDS_PER_REQUEST, 0.01);
});
