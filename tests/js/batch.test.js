'use strict';
// Issue 7, route 1, and issue 22: the callbacks of one batch run inside callback scopes chosen per batch
// (AddonState::runBatch). When several sockets became ready in one loop iteration, all their calls share one scope,
// whose microtasks and process.nextTick callbacks run once the batch is over, as node:http runs them once per read.
// A socket alone in its batch has its first two calls made as tasks of their own (their queues run as each returns,
// as uWebSockets.js makes every call), and the pipelined requests after those share one scope. Every rule of a
// single request still holds inside a batch.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { once } = require('node:events');
const { Worker } = require('node:worker_threads');
const { listen, raw } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');

const PIPELINED = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n';
const PIPELINED_FOUR = `${PIPELINED}GET /d HTTP/1.1\r\nHost: x\r\n\r\n`;

test('a read\'s first two handlers are tasks of their own; the pipelined ones after them run, then their queues', async (t) => {
  const events = [];
  const { port } = listen(t, (app) => app.get('/*', (res, req) => {
    const url = req.getUrl();
    events.push(`handler ${url}`);
    process.nextTick(() => events.push(`tick ${url}`));
    Promise.resolve().then(() => events.push(`microtask ${url}`));
    res.end(url);
  }));
  const answer = await raw(port, PIPELINED_FOUR, { until: (text) => text.endsWith('/d') });
  assert.deepEqual(answer.match(/\r\n\r\n\/[abcd]/g), ['\r\n\r\n/a', '\r\n\r\n/b', '\r\n\r\n/c', '\r\n\r\n/d']);
  assert.deepEqual(events, ['handler /a', 'tick /a', 'microtask /a', 'handler /b', 'tick /b', 'microtask /b',
                            'handler /c', 'handler /d', 'tick /c', 'tick /d', 'microtask /c', 'microtask /d']);
});

test('inside a batch, the code after an already-resolved await still belongs to the handler (issue 18)', async (t) => {
  const kept = [];
  const afterAwait = [];
  const afterRealWait = [];
  const { port } = listen(t, (app) => app.get('/*', async (res, req) => {
    kept.push(req);
    res.onAborted(() => {});
    await null;
    // The microtasks of a handler that left its response open run before its scope ends, as in uWebSockets.js.
    const url = req.getUrl();
    afterAwait.push(url);
    await new Promise((resolve) => setImmediate(resolve));
    try { req.getUrl(); afterRealWait.push('usable'); } catch (error) { afterRealWait.push(error.constructor.name); }
    res.end(url);
  }));
  const answer = await raw(port, PIPELINED, { until: (text) => text.endsWith('/c') });
  assert.deepEqual(answer.match(/\r\n\r\n\/[abc]/g), ['\r\n\r\n/a', '\r\n\r\n/b', '\r\n\r\n/c']);
  assert.deepEqual(afterAwait, ['/a', '/b', '/c']);
  assert.deepEqual(afterRealWait, ['Error', 'Error', 'Error']);
  for (const req of kept) assert.throws(() => req.getHeader('host'), /can only be used while its route handler runs/);
});

test('a handler that answers at once, past the first two of a read, keeps its microtasks for the end of the batch', async (t) => {
  const events = [];
  const { port } = listen(t, (app) => app.get('/*', (res, req) => {
    const url = req.getUrl();
    events.push(`handler ${url}`);
    Promise.resolve().then(() => {
      // Inside a task of its own the microtask is still the handler's, as in uWebSockets.js; at the end of the
      // batch the handler's scope is over.
      try { req.getUrl(); events.push(`usable ${url}`); } catch { events.push(`ended ${url}`); }
    });
    res.end(url);
  }));
  await raw(port, PIPELINED_FOUR, { until: (text) => text.endsWith('/d') });
  assert.deepEqual(events, ['handler /a', 'usable /a', 'handler /b', 'usable /b', 'handler /c', 'handler /d',
                            'ended /c', 'ended /d']);
});

test('the requests that wait behind a response completed later start a batch of their own', async (t) => {
  // /a is answered from a timer; /b and /c came with it and then run outside the timer's code, so the code after
  // their already-resolved awaits is theirs too (req readable, no 500 without onAborted).
  const seen = [];
  const { port } = listen(t, (app) => app.get('/*', async (res, req) => {
    const url = req.getUrl();
    if (url === '/a') {
      res.onAborted(() => {});
      setTimeout(() => res.end(url), 20);
      return;
    }
    await null;
    seen.push(req.getUrl());
    res.end(url);
  }));
  const answer = await raw(port, PIPELINED, { until: (text) => text.endsWith('/c') });
  assert.deepEqual(answer.match(/HTTP\/1\.1 \d+/g), ['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
  assert.deepEqual(seen, ['/b', '/c']);
});

test('responses ended from a nextTick of the batch go out in order, and the next requests follow', async (t) => {
  const { port } = listen(t, (app) => app.get('/*', (res, req) => {
    const url = req.getUrl();
    res.onAborted(() => {});
    process.nextTick(() => res.end(url));
  }));
  const answer = await raw(port, PIPELINED, { until: (text) => text.endsWith('/c') });
  assert.deepEqual(answer.match(/\r\n\r\n\/[abc]/g), ['\r\n\r\n/a', '\r\n\r\n/b', '\r\n\r\n/c']);
});

test('an exception in one handler of a batch is uncaught, and its request gets 500 after the ones before it', async () => {
  const result = await runNode([path.join(__dirname, 'fixtures', 'throwing-in-a-batch.js')]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), ['uncaught: handler threw in a batch',
                                                      'HTTP/1.1 200, HTTP/1.1 500']);
});

test('requests on different connections that arrive together run in one batch, before their microtasks', async (t) => {
  const events = [];
  const { port } = listen(t, (app) => app.get('/*', (res, req) => {
    const url = req.getUrl();
    if (url === '/block') {
      // Blocks the loop while the client thread sends one request on each of two other connections, so that both
      // are ready when the loop polls again.
      const until = Date.now() + 500;
      while (Date.now() < until);
      res.end(url);
      return;
    }
    if (url.startsWith('/late')) {
      events.push(`handler ${url}`);
      Promise.resolve().then(() => events.push(`microtask ${url}`));
    }
    res.end(url);
  }));
  // The client runs on a thread of its own, whose loop keeps going while the server's is blocked.
  const client = new Worker(`
    const net = require('node:net');
    const { workerData, parentPort } = require('node:worker_threads');
    const request = (url) => 'GET ' + url + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n';
    function open() {
      return new Promise((resolve, reject) => {
        const socket = net.connect(workerData.port, '127.0.0.1');
        socket.on('error', reject);
        socket.setEncoding('latin1');
        socket.answer = () => new Promise((done) => socket.once('data', done));
        socket.once('connect', () => resolve(socket));
      });
    }
    (async () => {
      const sockets = [await open(), await open(), await open()];
      // One answered request each first: every connection is accepted and watched before the block.
      for (const socket of sockets) { socket.write(request('/warm')); await socket.answer(); }
      const answers = sockets.map((socket) => socket.answer());
      sockets[0].write(request('/block'));
      await new Promise((resolve) => setTimeout(resolve, 150));
      sockets[1].write(request('/late1'));
      sockets[2].write(request('/late2'));
      const texts = await Promise.all(answers);
      for (const socket of sockets) socket.destroy();
      parentPort.postMessage(texts.map((text) => text.slice(text.lastIndexOf('\\r\\n') + 2)));
    })();
  `, { eval: true, workerData: { port } });
  const [answers] = await once(client, 'message');
  await client.terminate();
  assert.deepEqual(answers, ['/block', '/late1', '/late2']);
  assert.deepEqual(events.slice(0, 2).sort(), ['handler /late1', 'handler /late2']);
  assert.deepEqual(events.slice(2).map((event) => event.split(' ')[0]), ['microtask', 'microtask']);
});
