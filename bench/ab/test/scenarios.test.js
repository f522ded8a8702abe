'use strict';
// The scenario table and the answers the JavaScript servers share. (That every implementation answers alike
// over real sockets is in integration.test.js.)
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { IMPLEMENTATIONS, SCENARIOS, FANOUT_SUBSCRIBERS, TLS_ARGS } = require('../../scenarios/scenarios');
const common = require('../../scenarios/js/common');
const { loadArgs } = require('../load');

const ROOT = path.resolve(__dirname, '../../..');
// The implementations of the single-server scenarios: every one but socket.io, which runs only the cluster ones.
const TABLE_IMPLEMENTATIONS = ['loopwire-cpp', 'loopwire-js', 'node-http', 'uws'];

test('the twenty-nine scenarios, all switched on', () => {
  assert.deepEqual(SCENARIOS.map((s) => s.name), ['http/hello-world', 'http/headers', 'http/json-post-1kb',
    'http/cached', 'http/hello-pipelined', 'https/hello-world', 'https/handshake-full', 'https/handshake-resumed',
    'ws/echo-20b', 'wss/echo-20b', 'ws/echo-4kb', 'ws/fanout', 'cluster/fanout', 'cluster/fanout-10',
    'cluster/fanout-history', 'static/1kb', 'static/1mb', 'static/1mb-tls', 'static/gzip-50kb',
    'compress/json-50kb', 'compress/json-50kb-level6', 'h2/hello-world', 'h2/hello-1stream', 'h2/headers',
    'h2/post-1kb', 'h2c/hello-world', 'h2c/hello-1stream', 'h2c/headers', 'h2c/post-1kb']);
  for (const s of SCENARIOS) {
    assert.equal(s.enabled, true, s.name);
    assert.equal(s.request.tls, s.name.startsWith('https/') || s.name.startsWith('wss/') || s.name.endsWith('-tls') ||
      s.name.startsWith('h2/'), s.name);
    const connections = { 'cluster/fanout-10': 10, 'https/handshake-full': 20, 'https/handshake-resumed': 20 };
    assert.equal(s.connections, connections[s.name] ?? (s.request.mode === 'fanout' ? FANOUT_SUBSCRIBERS : 100),
      s.name);
    assert.equal(s.pipeline, s.name === 'http/hello-pipelined' ? 16 : 1, s.name);
    const unit = s.request.reconnect ? 'handshake' : s.name.startsWith('static/1mb') ? 'MiB'
      : { http: 'request', h2: 'request', ws: 'message', fanout: 'delivery' }[s.request.mode];
    assert.equal(s.unit, unit, s.name);
    assert.equal(s.joinSeconds, { 'ws/fanout': 1, 'cluster/fanout': 2, 'cluster/fanout-10': 2,
      'cluster/fanout-history': 2 }[s.name] ?? 0, s.name);
    // Only answers coded per request are compared decoded; every other body byte for byte.
    assert.equal(s.compareBody, s.name.startsWith('compress/') ? 'decoded' : 'bytes', s.name);
  }
});

test('https/handshake-full and -resumed: one TLS handshake per request, with and without a session offered', () => {
  const full = SCENARIOS.find((s) => s.name === 'https/handshake-full');
  const resumed = SCENARIOS.find((s) => s.name === 'https/handshake-resumed');
  assert.equal(full.request.reconnect, true);
  assert.equal(full.request.tlsResume, false);
  assert.equal(resumed.request.tlsResume, true);
  assert.deepEqual(full.servers, SCENARIOS.find((s) => s.name === 'https/hello-world').servers);
});

test('wss/echo-20b: the echo servers over TLS, given the run\'s key and certificate', () => {
  const wss = SCENARIOS.find((s) => s.name === 'wss/echo-20b');
  const ws = SCENARIOS.find((s) => s.name === 'ws/echo-20b');
  assert.deepEqual({ ...wss.request, tls: undefined }, { ...ws.request, tls: undefined });
  for (const [impl, server] of Object.entries(wss.servers)) {
    assert.deepEqual(server.command.slice(-TLS_ARGS.length), TLS_ARGS, impl);
    assert.match(server.command.join(' '), /https-echo/, impl);
  }
});

test('cluster/fanout and cluster/fanout-10: two nodes and a Redis per arm, half the subscribers on each', () => {
  const clusters = SCENARIOS.filter((s) => s.name === 'cluster/fanout' || s.name === 'cluster/fanout-10');
  assert.equal(clusters.length, 2);
  for (const cluster of clusters) {
    assert.equal(cluster.request.split, true);
    assert.equal(cluster.request.settleMs, 250);
    assert.deepEqual(Object.keys(cluster.servers).sort(), ['loopwire-js', 'socketio', 'uws']);
    for (const server of Object.values(cluster.servers)) {
      assert.equal(server.command[1], '{root}/bench/scenarios/js/cluster/launcher.js');
      assert.ok(fs.existsSync(path.join(ROOT, 'bench/scenarios/js/cluster', server.command[3])), server.command[3]);
    }
    // socket.io is loaded on its own path, in its own protocol; the others as the scenario says.
    assert.deepEqual(cluster.servers.socketio.load, { path: '/socket.io/?EIO=4&transport=websocket', socketIo: true });
    assert.equal(cluster.servers.socketio.requires, '{socketio}');
    assert.equal(cluster.servers.uws.load, undefined);
  }
});

test('cluster/fanout-history: loopwire\'s nodes keep the topic\'s history, and lwload checks the stamps', () => {
  const history = SCENARIOS.find((s) => s.name === 'cluster/fanout-history');
  assert.equal(history.request.split, true);
  assert.equal(history.request.stamped, true);
  assert.deepEqual(Object.keys(history.servers), ['loopwire-js']);
  assert.deepEqual(history.servers['loopwire-js'].command.slice(-2), ['--history', '100']);
  assert.ok(loadArgs(history, 1, { seconds: 1, splitPort: 2 }).includes('--stamped'));
  assert.ok(!loadArgs(SCENARIOS.find((s) => s.name === 'cluster/fanout'), 1, { seconds: 1, splitPort: 2 })
    .includes('--stamped'));
});

test('ws/fanout: 1,000 subscribers, 20-byte messages, a window of 8, on all four implementations', () => {
  const fanout = SCENARIOS.find((s) => s.name === 'ws/fanout');
  assert.equal(FANOUT_SUBSCRIBERS, 1000);
  assert.deepEqual(fanout.request, { mode: 'fanout', headers: {}, tls: false, path: '/', messageBytes: 20,
    window: 8 });
  assert.deepEqual(Object.keys(fanout.servers).sort(), TABLE_IMPLEMENTATIONS);
  assert.deepEqual(fanout.servers['loopwire-cpp'].command, ['{build}/bench/scenarios/fanout']);
  assert.equal(fanout.servers['node-http'].requires, 'ws');
});

test('https/hello-world: hello-world over TLS on all four implementations, each given the run\'s key and certificate',
  () => {
    const https = SCENARIOS.find((s) => s.name === 'https/hello-world');
    assert.deepEqual(https.request, { mode: 'http', headers: {}, tls: true, method: 'GET', path: '/' });
    assert.equal(https.connections, 100);
    assert.deepEqual(Object.keys(https.servers).sort(), TABLE_IMPLEMENTATIONS);
    assert.deepEqual(TLS_ARGS, ['--key', '{tlsKey}', '--cert', '{tlsCert}']);
    for (const server of Object.values(https.servers)) assert.deepEqual(server.command.slice(-4), TLS_ARGS);
    assert.deepEqual(https.servers['loopwire-cpp'].command[0], '{build}/bench/scenarios/https-hello-world');
    assert.equal(https.servers.uws.requires, '{uws}');
  });

test('the TLS servers take --key and --cert, the HTTP/2 ones --http2', () => {
  assert.deepEqual(common.parseArgs(['--port', '0', '--key', '/k.pem', '--cert', '/c.pem']),
    { port: 0, module: null, key: '/k.pem', cert: '/c.pem', docroot: null, http2: false });
  assert.deepEqual(common.parseArgs(['--module', 'x', '--docroot', '/d', '--http2']),
    { port: 0, module: 'x', key: null, cert: null, docroot: '/d', http2: true });
  assert.equal(common.UNAVAILABLE_EXIT_STATUS, 3);
});

test('the fan-out servers share the topic and a backpressure limit far above one window', () => {
  assert.equal(common.FANOUT_TOPIC, 'fanout');
  assert.ok(common.FANOUT_MAX_BACKPRESSURE_BYTES >= 1024 * 1024);
  const cpp = fs.readFileSync(path.join(ROOT, 'bench/scenarios/cpp/fanout.cpp'), 'utf8');
  assert.match(cpp, /kTopic = "fanout"/);
  assert.match(cpp, /kMaxBackpressureBytes = 1024 \* 1024/);
});

test('every server named in the table exists and every implementation is known', () => {
  for (const s of SCENARIOS) {
    for (const [impl, server] of Object.entries(s.servers)) {
      assert.ok(IMPLEMENTATIONS[impl], `${s.name}: ${impl}`);
      for (const part of server.command) {
        if (part.startsWith('{root}/')) assert.ok(fs.existsSync(part.replace('{root}', ROOT)), part);
        if (part.startsWith('{build}/')) {
          const source = path.join(ROOT, 'bench/scenarios/cpp', `${path.basename(part)}.cpp`);
          assert.ok(fs.existsSync(source), source);
        }
      }
    }
    // Every single-server scenario runs on every implementation; a cluster one on those that have a cluster; a
    // static or compress one (which read the run's document root) on loopwire and its competitors there
    // (bench/ab/test/static.test.js, compress.test.js).
    if (s.enabled && !s.request.split && !s.docroot && s.request.mode !== 'h2') {
      assert.ok(s.servers['loopwire-cpp'] && s.servers['node-http'], s.name);
    }
  }
});

test('the JSON body is about 1 KB of valid JSON with an integer id', () => {
  const body = fs.readFileSync(SCENARIOS.find((s) => s.name === 'http/json-post-1kb').request.bodyFile);
  assert.equal(body.length, 1024);
  assert.deepEqual(JSON.parse(common.jsonAnswer(body).body), { id: 12345, keys: 6, bytes: 1024 });
});

test('jsonAnswer refuses what is not a JSON object', () => {
  for (const text of ['{"a":1,}', '[1,2]', '42', 'null', '']) {
    assert.deepEqual(common.jsonAnswer(Buffer.from(text)), { status: '400 Bad Request',
      body: '{"error":"invalid json"}' }, text);
  }
  assert.equal(common.jsonAnswer(Buffer.from('{"id":1.5}')).body, '{"id":null,"keys":1,"bytes":10}');
});

test('the cached page is 32 lines of 32 bytes', () => {
  const page = common.cachedPage();
  assert.equal(page.length, 1024);
  assert.equal(page.toString().split('\n')[31], '031 abcdefghijklmnopqrstuvwxyz.');
});

test('headersAnswer joins what it read and refuses an answer over 512 bytes', () => {
  assert.equal(common.headersAnswer('42', 'en', 'application/json', 'lwload/1'),
    'user=42 lang=en accept=application/json agent=lwload/1');
  assert.equal(common.headersAnswer(null, undefined, '', 'x'), 'user= lang= accept= agent=x');
  assert.equal(common.headersAnswer('x'.repeat(600), '', '', ''), null);
});

test('the HTTP/2 rows: h2load, the http/* servers given --http2, node:http2, and h2o and nginx for hello', () => {
  for (const tls of [true, false]) {
    const prefix = tls ? 'h2' : 'h2c';
    const rows = SCENARIOS.filter((s) => s.name.startsWith(`${prefix}/`));
    assert.deepEqual(rows.map((s) => [s.name, s.streams, Object.keys(s.servers).sort()]), [
      [`${prefix}/hello-world`, 10, ['h2o', 'loopwire-cpp', 'loopwire-js', 'nginx', 'node-http2']],
      [`${prefix}/hello-1stream`, 1, ['h2o', 'loopwire-cpp', 'loopwire-js', 'nginx', 'node-http2']],
      [`${prefix}/headers`, 10, ['loopwire-cpp', 'loopwire-js', 'node-http2']],
      [`${prefix}/post-1kb`, 10, ['loopwire-cpp', 'loopwire-js', 'node-http2']],
    ]);
    for (const s of rows) {
      assert.equal(s.request.mode, 'h2', s.name);
      assert.equal(s.request.tls, tls, s.name);
      for (const [impl, server] of Object.entries(s.servers)) {
        if (server.config) {
          // h2o speaks HTTP/2 on every port; nginx only where the listen line says so.
          if (impl === 'nginx') assert.match(server.config.template, tls ? / ssl http2;/ : / http2;/, s.name);
          assert.equal(server.config.template.includes('{tlsCert}'), tls, `${s.name} ${impl}`);
          continue;
        }
        assert.ok(server.command.includes('--http2'), `${s.name} ${impl}`);
        assert.equal(server.command.includes('--key'), tls, `${s.name} ${impl}`);
      }
    }
    // The hello rows' file is the answer the other servers give.
    assert.deepEqual(rows[0].docroot, { 'hello.txt': { kind: 'hello', size: common.HELLO_WORLD.length } });
  }
});
