'use strict';
// app.close({ drainMs }, callback): graceful shutdown over real clients (node:http with keep-alive, the ws client),
// its argument checks, and a process that exits by itself once the drain is over.

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const WebSocket = require('ws');
const uWS = require('../../addon/lib/index.js');
const { listen, raw, waitFor } = require('./helpers/server.js');

function get(port, target, agent) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: target, agent }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on('error', reject);
  });
}

// GET /slow is held until the test answers it (held.res); anything else is answered at once.
function holdingServer(t) {
  const held = { res: null, aborted: false };
  const server = listen(t, (app) => {
    app.get('/slow', (res) => {
      res.onAborted(() => { held.aborted = true; });
      held.res = res;
    });
    app.get('/*', (res) => res.end('hi'));
  });
  return { ...server, held };
}

test('app.close checks its arguments', (t) => {
  const { app } = listen(t, () => {});
  assert.throws(() => app.close(42), { name: 'TypeError', message: /app\.close: options must be an object/ });
  assert.throws(() => app.close({ drainMs: -1 }), { name: 'RangeError', message: /app\.close: options\.drainMs/ });
  assert.throws(() => app.close({ drainMs: {} }), /app\.close: options\.drainMs/);
  assert.throws(() => app.close({}, 'later'), { name: 'TypeError', message: /app\.close: callback must be a function/ });
});

test('a drain closes idle keep-alive connections, finishes a request in progress with Connection: close, then calls back', async (t) => {
  const { app, port, token, held } = holdingServer(t);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  t.after(() => agent.destroy());
  // An idle keep-alive connection, and a request in progress on another.
  assert.equal((await get(port, '/', agent)).body, 'hi');
  const slow = get(port, '/slow', agent);
  await waitFor(() => held.res !== null, 'the held request');

  let closedCalls = 0;
  assert.equal(app.close({ drainMs: 10000 }, () => { closedCalls += 1; }), app);
  assert.equal(uWS.us_socket_local_port(token), -1);
  await assert.rejects(raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'), { code: 'ECONNREFUSED' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(closedCalls, 0, 'the callback waits for the request in progress');

  held.res.cork(() => held.res.end('done'));
  const answer = await slow;
  assert.equal(answer.body, 'done');
  assert.equal(answer.headers.connection, 'close');
  await waitFor(() => closedCalls === 1, 'the close callback');
  assert.equal(held.aborted, false);
});

test('what a drain leaves after drainMs is closed and aborted', async (t) => {
  const { app, port, held } = holdingServer(t);
  const pending = raw(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => held.res !== null, 'the held request');
  let closed = false;
  const start = Date.now();
  app.close({ drainMs: 150 }, () => { closed = true; });
  await pending;
  await waitFor(() => closed, 'the close callback');
  assert.ok(Date.now() - start >= 100, 'not before drainMs');
  assert.equal(held.aborted, true);
});

test('a drain closes WebSockets with 1001 and their close handlers run', async (t) => {
  const events = [];
  const { app, port } = listen(t, (server) => server.ws('/ws', {
    close: (ws, code) => events.push(`close:${code}`),
  }));
  const client = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve, reject) => { client.once('open', resolve); client.once('error', reject); });
  const clientClosed = new Promise((resolve) => client.once('close', (code) => resolve(code)));
  let closed = false;
  app.close({ drainMs: 10000 }, () => { closed = true; });
  assert.equal(await clientClosed, 1001);
  assert.deepEqual(events, ['close:1001']);
  await waitFor(() => closed, 'the close callback');
});

test('close() without options keeps uWebSockets.js\'s meaning, and a callback alone (node:http\'s way) still runs', async (t) => {
  const { app, port, held } = holdingServer(t);
  const pending = raw(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => held.res !== null, 'the held request');
  let closed = false;
  assert.equal(app.close(() => { closed = true; }), app);
  // Everything closed at once, the callback after the call.
  assert.equal(held.aborted, true);
  assert.equal(closed, false);
  await pending;
  await waitFor(() => closed, 'the close callback');
});

test('a process whose App drained exits by itself', async () => {
  const { runNode } = require('./helpers/child.js');
  const script = `
    const http = require('node:http');
    const uWS = require(${JSON.stringify(path.resolve(__dirname, '../../addon/lib/index.js'))});
    const app = uWS.App().get('/*', (res) => res.end('x'));
    app.listen('127.0.0.1', 0, (token) => {
      const port = uWS.us_socket_local_port(token);
      const agent = new http.Agent({ keepAlive: true });
      http.get({ host: '127.0.0.1', port, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          app.close({ drainMs: 60000 }, () => { console.log('drained'); agent.destroy(); });
        });
      });
    });
  `;
  const started = Date.now();
  const result = await runNode(['-e', script], { timeoutMs: 20000 });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /drained/);
  assert.ok(Date.now() - started < 15000, 'the drain ended with its last connection, not at drainMs');
});
