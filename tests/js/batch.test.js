'use strict';
// Issue 7, route 1: the callbacks of one batch (one read bringing several pipelined requests) run inside one
// callback scope, so their microtasks and process.nextTick callbacks run once the batch is over, as node:http
// runs them once per read. Every rule of a single request still holds inside a batch.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { listen, raw } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');

const PIPELINED = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n';

test('the handlers of one read run first, then the microtasks and nextTicks they queued', async (t) => {
  const events = [];
  const { port } = listen(t, (app) => app.get('/*', (res, req) => {
    const url = req.getUrl();
    events.push(`handler ${url}`);
    process.nextTick(() => events.push(`tick ${url}`));
    Promise.resolve().then(() => events.push(`microtask ${url}`));
    res.end(url);
  }));
  const answer = await raw(port, PIPELINED, { until: (text) => text.endsWith('/c') });
  assert.deepEqual(answer.match(/\r\n\r\n\/[abc]/g), ['\r\n\r\n/a', '\r\n\r\n/b', '\r\n\r\n/c']);
  assert.deepEqual(events, ['handler /a', 'handler /b', 'handler /c', 'tick /a', 'tick /b', 'tick /c',
                            'microtask /a', 'microtask /b', 'microtask /c']);
});

test('inside a batch, req is unusable once its handler returned, and after an await', async (t) => {
  const kept = [];
  const afterAwait = [];
  const { port } = listen(t, (app) => app.get('/*', async (res, req) => {
    kept.push(req);
    res.onAborted(() => {});
    const url = req.getUrl();
    await null;
    try { req.getUrl(); afterAwait.push('usable'); } catch (error) { afterAwait.push(error.constructor.name); }
    res.end(url);
  }));
  await raw(port, PIPELINED, { until: (text) => text.endsWith('/c') });
  assert.deepEqual(afterAwait, ['Error', 'Error', 'Error']);
  for (const req of kept) assert.throws(() => req.getHeader('host'), /can only be used while its route handler runs/);
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
