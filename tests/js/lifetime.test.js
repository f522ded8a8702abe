'use strict';
// Lifetime rules of res and req, onAborted, garbage collection of res objects, and what happens when a handler
// misbehaves: each rule over real connections.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { listen, raw, connect, waitFor, gc } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');

const fixtures = path.join(__dirname, 'fixtures');
const GET = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

function throwsInvalid(fn) {
  assert.throws(fn, { name: 'Error', message: /can no longer be used/ });
}

test('res throws after end, endWithoutBody and close', async (t) => {
  const kept = {};
  const { port } = listen(t, (app) => {
    app.get('/end', (res) => { res.end('x'); kept.end = res; });
    app.get('/without', (res) => { res.endWithoutBody(); kept.without = res; });
    app.get('/close', (res) => { res.close(); kept.close = res; });
  });
  await raw(port, 'GET /end HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await raw(port, 'GET /without HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await raw(port, 'GET /close HTTP/1.1\r\nHost: x\r\n\r\n');
  for (const res of Object.values(kept)) {
    throwsInvalid(() => res.end('again'));
    throwsInvalid(() => res.writeHeader('a', 'b'));
    throwsInvalid(() => res.getWriteOffset());
    throwsInvalid(() => res.onAborted(() => {}));
    throwsInvalid(() => res.cork(() => {}));
  }
});

test('res throws after an abort, and onAborted found it already invalid', async (t) => {
  let kept;
  let insideAbort;
  const { port } = listen(t, (app) => app.get('/', (res) => {
    kept = res;
    res.onAborted(() => {
      try { res.end('x'); } catch (error) { insideAbort = error.message; }
    });
  }));
  const socket = await connect(port);
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => kept !== undefined, 'the handler');
  socket.destroy();
  await waitFor(() => insideAbort !== undefined, 'onAborted');
  assert.match(insideAbort, /can no longer be used/);
  throwsInvalid(() => kept.writeStatus('200 OK'));
});

test('res stays usable after a tryEnd that did not finish, and throws after one that did', async (t) => {
  const log = [];
  const total = 12;
  const { port } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => {});
    log.push(res.tryEnd('hello ', total));
    log.push(res.getWriteOffset());
    log.push(res.tryEnd('world!', total));
    throwsInvalid(() => res.tryEnd('more', total));
  }));
  const answer = await raw(port, GET);
  assert.ok(answer.endsWith('hello world!'));
  assert.deepEqual(log, [[true, false], 6, [true, true]]);
});

test('req is readable after an already-resolved await, and throws once the handler scope is over', async (t) => {
  const errors = [];
  const read = [];
  let kept;
  const { port } = listen(t, (app) => app.get('/', async (res, req) => {
    kept = req;
    res.onAborted(() => {});
    assert.equal(req.getUrl(), '/');
    await null;
    read.push(req.getUrl(), req.getHeader('host'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    try { req.getUrl(); } catch (error) { errors.push(error.message); }
    res.end('ok');
  }));
  await raw(port, GET);
  assert.deepEqual(read, ['/', 'x']);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /only be used while its route handler runs/);
  assert.throws(() => kept.getHeader('host'), /only be used while its route handler runs/);
});

test('a response completed after an already-resolved await needs no onAborted (issue 18)', async (t) => {
  const { port } = listen(t, (app) => {
    app.get('/await', async (res, req) => {
      await null;
      await Promise.resolve();
      res.writeHeader('x-url', req.getUrl()).end('after await');
    });
    app.get('/tick', (res) => { process.nextTick(() => res.end('after nextTick')); });
  });
  const answer = await raw(port, 'GET /await HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(answer, /\r\nx-url: \/await\r\n/);
  assert.ok(answer.endsWith('after await'));
  const tick = await raw(port, 'GET /tick HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(tick, /^HTTP\/1\.1 200 OK\r\n/);
  assert.ok(tick.endsWith('after nextTick'));
});

test('only the last onAborted callback runs, exactly once', async (t) => {
  const calls = [];
  let handled = false;
  const { port } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => calls.push('first'));
    res.onAborted(() => calls.push('second'));
    res.onAborted(() => calls.push('last'));
    handled = true;
  }));
  const socket = await connect(port);
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => handled, 'the handler');
  socket.destroy();
  await waitFor(() => calls.length > 0, 'onAborted');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(calls, ['last']);
});

test('onAborted and onData callbacks survive a forced garbage collection', async (t) => {
  const events = [];
  let handled = false;
  const { port } = listen(t, (app) => app.post('/', (res) => {
    // Closures that only the res object's internal fields reference.
    const label = `req-${Math.random()}`;
    res.onAborted(() => events.push(`aborted ${label.slice(0, 4)}`));
    res.onData((chunk) => events.push(`data ${chunk.byteLength}`));
    handled = true;
  }));
  const socket = await connect(port);
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n');
  await waitFor(() => handled, 'the handler');
  for (let i = 0; i < 3; i++) gc();
  socket.write('12345');
  await waitFor(() => events.length === 1, 'the first chunk');
  for (let i = 0; i < 3; i++) gc();
  socket.destroy();
  await waitFor(() => events.length === 2, 'onAborted');
  assert.deepEqual(events, ['data 5', 'aborted req-']);
});

test('after 2,000 answered requests, all 2,000 res objects are collected', async (t) => {
  let collected = 0;
  let created = 0;
  const registry = new FinalizationRegistry(() => { collected++; });
  const { url } = listen(t, (app) => {
    app.get('/sync', (res) => {
      registry.register(res, null);
      created++;
      res.end('s');
    });
    app.get('/async', (res) => {
      registry.register(res, null);
      created++;
      res.onAborted(() => {});
      setImmediate(() => res.cork(() => res.end('a')));
    });
    app.post('/body', (res) => {
      registry.register(res, null);
      created++;
      res.onAborted(() => {});
      res.onData((chunk, isLast) => { if (isLast) res.end('b'); });
    });
  });
  const requests = 2000;
  const concurrency = 32;
  let next = 0;
  async function worker() {
    while (next < requests) {
      const i = next++;
      const kind = ['/sync', '/async', '/body'][i % 3];
      const response = await fetch(url(kind), kind === '/body' ? { method: 'POST', body: 'x' } : undefined);
      await response.text();
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  assert.equal(created, requests);
  const deadline = Date.now() + 10000;
  while (collected < requests && Date.now() < deadline) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(collected, requests);
});

test('a handler that returns without answering and without onAborted gets 500 and one warning', async () => {
  const result = await runNode([path.join(fixtures, 'unanswered.js')]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), [
    'HTTP/1.1 500 Internal Server Error', 'kept res: Error',
    'HTTP/1.1 500 Internal Server Error', 'kept res: Error',
  ]);
  const warnings = result.stderr.split('\n').filter((line) => line.includes('without responding'));
  assert.equal(warnings.length, 1, result.stderr);
});

test('an exception in a handler or callback goes to uncaughtException, and the server goes on', async () => {
  const result = await runNode([path.join(fixtures, 'throwing-handlers.js'), 'listen']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), [
    'uncaught: handler threw',
    'throw: HTTP/1.1 500 Internal Server Error',
    'ok: HTTP/1.1 200 OK',
    'uncaught: onData threw',
    'data: HTTP/1.1 200 OK',
    'uncaught: handler threw after onAborted',
    'uncaught: onAborted threw',
    'after-onaborted: (closed)',
    'ok again: HTTP/1.1 200 OK',
  ]);
});

test('without an uncaughtException listener, a throwing handler ends the process as any Node callback', async () => {
  const result = await runNode([path.join(fixtures, 'throwing-handlers.js'), 'none']);
  assert.equal(result.code, 1);
  assert.equal(result.signal, null);
  assert.match(result.stderr, /Error: handler threw/);
  assert.match(result.stderr, /throwing-handlers\.js/);
});
