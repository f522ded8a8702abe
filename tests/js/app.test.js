'use strict';
// The App: every route method, null handlers, listen overloads, listen_unix, close, and the module functions,
// each over a real client on loopback.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const uWS = require('../../addon/lib/index.js');
const { listen, raw } = require('./helpers/server.js');

function request(port, method, target, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent: false }, (res) => {
      let text = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('App() returns a uWS.App, with or without new, and checks its options', () => {
  const app = uWS.App();
  assert.equal(app.constructor.name, 'uWS.App');
  assert.equal(new uWS.App({}).constructor.name, 'uWS.App');
  assert.equal(uWS.App(null).constructor.name, 'uWS.App');
  assert.throws(() => uWS.App(42), TypeError);
  assert.throws(() => uWS.SSLApp({}), /SSLApp: cert_file_name: no certificate given/);
  assert.equal(uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, 1);
});

test('the compression constants have uWebSockets.js v20\'s values', () => {
  // Read from the uwebsockets@3.0.6 binary.
  const expected = {
    DISABLED: 0, SHARED_COMPRESSOR: 1, SHARED_DECOMPRESSOR: 256, DEDICATED_COMPRESSOR: 248,
    DEDICATED_COMPRESSOR_3KB: 145, DEDICATED_COMPRESSOR_4KB: 146, DEDICATED_COMPRESSOR_8KB: 163,
    DEDICATED_COMPRESSOR_16KB: 180, DEDICATED_COMPRESSOR_32KB: 197, DEDICATED_COMPRESSOR_64KB: 214,
    DEDICATED_COMPRESSOR_128KB: 231, DEDICATED_COMPRESSOR_256KB: 248, DEDICATED_DECOMPRESSOR: 3840,
    DEDICATED_DECOMPRESSOR_32KB: 3840, DEDICATED_DECOMPRESSOR_16KB: 3584, DEDICATED_DECOMPRESSOR_8KB: 3328,
    DEDICATED_DECOMPRESSOR_4KB: 3072, DEDICATED_DECOMPRESSOR_2KB: 2816, DEDICATED_DECOMPRESSOR_1KB: 2560,
    DEDICATED_DECOMPRESSOR_512B: 2304,
  };
  for (const [name, value] of Object.entries(expected)) assert.equal(uWS[name], value, name);
});

test('every route method answers its own method, and any answers the rest', async (t) => {
  const methods = { get: 'GET', post: 'POST', put: 'PUT', del: 'DELETE', patch: 'PATCH', options: 'OPTIONS',
                    head: 'HEAD', trace: 'TRACE' };
  const { port } = listen(t, (app) => {
    for (const [name, method] of Object.entries(methods)) {
      assert.equal(app[name]('/m', (res, req) => res.end(`${name}:${req.getCaseSensitiveMethod()}`)), app);
    }
    app.any('/m', (res, req) => res.end(`any:${req.getMethod()}`));
  });
  for (const [name, method] of Object.entries(methods)) {
    const answer = await request(port, method, '/m');
    assert.equal(answer.status, 200);
    assert.equal(answer.body, method === 'HEAD' ? '' : `${name}:${method}`);
  }
  assert.equal((await request(port, 'PROPFIND', '/m')).body, 'any:propfind');
});

test('app.connect takes CONNECT requests', async (t) => {
  const { port } = listen(t, (app) => app.connect('/*', (res, req) => res.end(`tunnel to ${req.getUrl()}`)));
  const answer = await raw(port, 'CONNECT /example HTTP/1.1\r\nHost: example\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(answer, /tunnel to \/example$/);
});

test('a null handler removes the route', async (t) => {
  const { app, port } = listen(t, (server) => {
    server.get('/gone', (res) => res.end('here'));
    server.any('/any', (res) => res.end('any'));
  });
  assert.equal((await request(port, 'GET', '/gone')).body, 'here');
  app.get('/gone', null);
  app.any('/any', null);
  assert.equal((await request(port, 'GET', '/gone')).status, 404);
  assert.equal((await request(port, 'POST', '/any')).status, 404);
});

test('a route added again replaces the handler', async (t) => {
  const { app, port } = listen(t, (server) => server.get('/r', (res) => res.end('first')));
  app.get('/r', (res) => res.end('second'));
  assert.equal((await request(port, 'GET', '/r')).body, 'second');
});

test('route methods check their arguments', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.get(42, () => {}), TypeError);
  assert.throws(() => app.get('/x'), TypeError);
  assert.throws(() => app.get('/x', 'text'), TypeError);
  assert.throws(() => app.get('/x', new Uint8Array([9]).buffer), TypeError);
  assert.throws(() => app.get('/x', new Uint8Array([0, 5]).buffer), TypeError);
  assert.throws(() => app.get('/a/:', () => {}), /invalid route pattern/);
  assert.throws(() => app.get.call({}, '/x', () => {}), TypeError);
  assert.throws(() => new app.constructor(), TypeError);
  assert.throws(() => app.ws('/ws', 'behavior'), { name: 'TypeError', message: /app.ws: behavior must be an object/ });
});

test('routes cannot change from inside a handler', async (t) => {
  let error;
  const { port } = listen(t, (app) => app.get('/', (res) => {
    try { app.get('/late', () => {}); } catch (e) { error = e; }
    res.end('ok');
  }));
  assert.equal((await request(port, 'GET', '/')).body, 'ok');
  assert.match(error.message, /cannot be added or removed while a route handler runs/);
});

test('listen(port, cb) calls cb synchronously with a token, and us_socket_local_port tells the port', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  let token;
  let synchronous = false;
  assert.equal(app.listen(0, (listenSocket) => { token = listenSocket; synchronous = true; }), app);
  assert.ok(synchronous);
  assert.equal(token.constructor.name, 'uWS.ListenSocket');
  const port = uWS.us_socket_local_port(token);
  assert.ok(port > 0 && port < 65536);
  uWS.us_listen_socket_close(token);
  assert.equal(uWS.us_socket_local_port(token), -1);
  uWS.us_listen_socket_close(token);
});

test('the four listen overloads, and false when the port is taken exclusively', async (t) => {
  const first = uWS.App().get('/*', (res) => res.end('first'));
  t.after(() => first.close());
  let token;
  first.listen('127.0.0.1', 0, uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, (listenSocket) => { token = listenSocket; });
  const port = uWS.us_socket_local_port(token);
  assert.equal((await request(port, 'GET', '/')).body, 'first');

  const second = uWS.App();
  t.after(() => second.close());
  const results = [];
  second.listen(port, (listenSocket) => results.push(listenSocket));
  second.listen('127.0.0.1', port, (listenSocket) => results.push(listenSocket));
  second.listen(port, 0, (listenSocket) => results.push(listenSocket));
  second.listen('127.0.0.1', port, 0, (listenSocket) => results.push(listenSocket));
  assert.deepEqual(results, [false, false, false, false]);

  const third = uWS.App().get('/*', (res) => res.end('third'));
  t.after(() => third.close());
  let hostToken;
  third.listen('localhost', 0, (listenSocket) => { hostToken = listenSocket; });
  assert.ok(hostToken);
  assert.equal((await request(uWS.us_socket_local_port(hostToken), 'GET', '/')).body, 'third');
});

test('listen checks its arguments', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.listen(0), TypeError);
  assert.throws(() => app.listen(0, 'not a function'), TypeError);
  assert.throws(() => app.listen('127.0.0.1', () => {}), TypeError);
  assert.throws(() => app.listen(70000, () => {}), RangeError);
  assert.throws(() => app.listen(-1, () => {}), RangeError);
  assert.throws(() => app.listen(1.5, () => {}), RangeError);
  assert.throws(() => app.listen({}, 0, () => {}), TypeError);
  assert.throws(() => app.listen(0, () => { throw new Error('from the callback'); }), /from the callback/);
  assert.throws(() => uWS.us_listen_socket_close({}), TypeError);
  assert.throws(() => uWS.us_socket_local_port(undefined), TypeError);
});

test('listen_unix(cb, path) serves on a Unix socket', async (t) => {
  const socketPath = path.join(os.tmpdir(), `loopwire-${process.pid}-${Date.now()}.sock`);
  t.after(() => fs.rmSync(socketPath, { force: true }));
  const app = uWS.App().get('/*', (res, req) => res.end(`unix ${req.getUrl()}`));
  t.after(() => app.close());
  let token;
  assert.equal(app.listen_unix((listenSocket) => { token = listenSocket; }, socketPath), app);
  assert.ok(token);
  const body = await new Promise((resolve, reject) => {
    http.get({ socketPath, path: '/there' }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
  assert.equal(body, 'unix /there');
  assert.throws(() => app.listen_unix(socketPath, () => {}), TypeError);
});

test('app.close() stops listening, closes connections and invalidates tokens', async (t) => {
  const aborted = [];
  const { app, port, token } = listen(t, (server) => server.get('/hang', (res) => {
    res.onAborted(() => aborted.push('aborted'));
  }));
  const pending = raw(port, 'GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(app.close(), app);
  await pending;
  assert.deepEqual(aborted, ['aborted']);
  assert.equal(uWS.us_socket_local_port(token), -1);
  await assert.rejects(raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'), { code: 'ECONNREFUSED' });
});

test('an App that only listened lets the process exit once closed', async () => {
  const { runNode } = require('./helpers/child.js');
  const script = `
    const uWS = require(${JSON.stringify(path.resolve(__dirname, '../../addon/lib/index.js'))});
    const app = uWS.App().get('/*', (res) => res.end('x'));
    app.listen(0, (token) => { setTimeout(() => uWS.us_listen_socket_close(token), 20); });
  `;
  const result = await runNode(['-e', script], { timeoutMs: 10000 });
  assert.equal(result.code, 0, result.stderr);
});
