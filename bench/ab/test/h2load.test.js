'use strict';
// The h2load command line the HTTP/2 scenarios get, and h2load's report read into lwload's shape.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadArgs, loadTool, loadSeconds } = require('../load');
const { MIN_TIMED_SECONDS, h2loadCommand, parseH2load, durationUs } = require('../h2load');

const scenario = (request, extra = {}) => ({
  name: 'h2/x', connections: 100, pipeline: 1, streams: 10, ...extra,
  request: { mode: 'h2', headers: {}, tls: true, ...request },
});

// A report as h2load 1.52 prints it after a timed run (its progress lines left out), and the wrapper's stat line.
const REPORT = `starting benchmark...
Application protocol: h2

finished in 2.01s, 450910.00 req/s, 29.24MB/s
requests: 901820 total, 902820 started, 901820 done, 901800 succeeded, 20 failed, 3 errored, 1 timeout
status codes: 901790 2xx, 0 3xx, 10 4xx, 0 5xx
traffic: 58.49MB (61328660) total, 32.68MB (34269160) headers (space savings 35.59%), 10.32MB (10821840) data
                     min         max         mean         sd        +/- sd
time for request:      632us     17.66ms      1.08ms       283us    99.36%
time for connect:     6.22ms     50.17ms     28.50ms     13.03ms    57.00%

4242 (sh) S 4241 4242 4242 0 -1 4194304 100 200 0 0 0 0 150 48 20 0 1 0 12345 2000000 300`;

test('HTTP/2 scenarios are loaded by h2load; every other by lwload', () => {
  assert.equal(loadTool(scenario({ path: '/' })), 'h2load');
  assert.equal(loadTool({ request: { mode: 'http' } }), 'lwload');
  assert.equal(loadTool({ request: { mode: 'ws' } }), 'lwload');
});

test('a timed run over TLS (h2 only), streams in flight on each connection, one thread', () => {
  assert.deepEqual(loadArgs(scenario({ path: '/hello.txt' }), 4000, { seconds: 5 }),
    ['-c', '100', '-m', '10', '-t', '1', '--npn-list', 'h2', '-D', '5', 'https://127.0.0.1:4000/hello.txt']);
});

test('a timed run lasts at least MIN_TIMED_SECONDS, so that its connections are up before it ends', () => {
  const s = scenario({ path: '/' });
  assert.deepEqual(loadArgs(s, 1, { seconds: 1 }).slice(8, 10), ['-D', String(MIN_TIMED_SECONDS)]);
  assert.equal(loadSeconds(s, 1), MIN_TIMED_SECONDS);
  assert.equal(loadSeconds(s, 10), 10);
  assert.equal(loadSeconds({ request: { mode: 'http' } }, 1), 1);
});

test('cleartext, headers lower-cased, a body, and a request count never under the connections', () => {
  const s = scenario({ path: '/json', tls: false, headers: { 'Content-Type': 'application/json' },
    bodyFile: '/tmp/body.json' }, { streams: 1 });
  assert.deepEqual(loadArgs(s, 5, { requests: 20000, connections: 1 }),
    ['-c', '1', '-m', '1', '-t', '1', '-n', '20000', '-H', 'content-type: application/json', '-d', '/tmp/body.json',
      'http://127.0.0.1:5/json']);
  assert.deepEqual(loadArgs(s, 5, { requests: 10 }).slice(6, 8), ['-n', '100']);
});

test('h2load runs under sh, which prints its stat line once h2load is done', () => {
  const command = h2loadCommand(['-c', '1', 'http://127.0.0.1:1/']);
  assert.deepEqual(command.slice(0, 2), ['sh', '-c']);
  assert.match(command[2], /^h2load "\$@"; .*cat \/proc\/\$\$\/stat/);
  assert.deepEqual(command.slice(3), ['h2load', '-c', '1', 'http://127.0.0.1:1/']);
});

test('the report, read as lwload\'s JSON line', () => {
  assert.deepEqual(parseH2load(REPORT), {
    requests: 901800,
    rps: 450910,
    duration_s: 2.01,
    errors: { failed: 20, errored: 3, timeout: 1 },
    non2xx: 10,
    client_cpu_s: 1.98,  // cutime 150 + cstime 48 ticks
    bytes_read: 61328660,
    latency_us: { p50: 1080, p99: null, max: 17660 },
  });
  // A short run's time is in milliseconds.
  assert.equal(parseH2load(REPORT.replace('finished in 2.01s', 'finished in 15.32ms')).duration_s, 0.01532);
  // Without the stat line, no CPU time.
  assert.equal(parseH2load(REPORT.slice(0, REPORT.lastIndexOf('\n'))).client_cpu_s, null);
  // A server that did not select h2 made it an HTTP/1.1 run: refused.
  assert.throws(() => parseH2load(REPORT.replace('Application protocol: h2', 'Application protocol: http/1.1')),
    /h2load spoke http\/1\.1, not HTTP\/2/);
  assert.equal(parseH2load(REPORT.replace('Application protocol: h2', 'Application protocol: h2c')).requests, 901800);
  // A report cut short says which line is missing.
  assert.throws(() => parseH2load('starting benchmark...\nfinished in 1.00s, 5.00 req/s, 1KB/s\n'),
    /no requests line/);
});

test('h2load durations in microseconds', () => {
  assert.equal(durationUs('632us'), 632);
  assert.equal(durationUs('17.66ms'), 17660);
  assert.equal(durationUs('1.5s'), 1500000);
  assert.throws(() => durationUs('3min'), /not an h2load duration/);
});
