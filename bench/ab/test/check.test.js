'use strict';
// The check before measuring: every server must answer the scenario's request alike.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const zlib = require('node:zlib');
const { BODY_VIEWS, WS_CHECKS, compareAnswers, requestOnce } = require('../check');

const scenario = { name: 'http/headers', compareHeaders: ['x-request-id'], request: { method: 'GET', path: '/',
  headers: {} } };
const answer = (status, body, headers = { 'x-request-id': 'a' }) => ({ status, headers, body: Buffer.from(body) });

test('equal answers pass; Date and other headers not named do not matter', () => {
  const answers = ['base#1', 'head#1', 'base#2', 'head#2'].map((copy, i) =>
    ({ copy, answer: answer(200, 'hi', { 'x-request-id': 'a', date: String(i) }) }));
  assert.equal(compareAnswers(scenario, answers), null);
});

test('a different status, body or named header stops the run and shows every answer', () => {
  const base = { copy: 'base#1', answer: answer(200, 'hi') };
  const status = compareAnswers(scenario, [base, { copy: 'head#1', answer: answer(404, 'hi') }]);
  assert.match(status, /answer differently/);
  assert.match(status, /base#1:\n {4}status 200/);
  assert.match(status, /head#1:\n {4}status 404/);
  assert.match(compareAnswers(scenario, [base, { copy: 'head#1', answer: answer(200, 'ho') }]), /body "ho"/);
  assert.match(compareAnswers(scenario, [base, { copy: 'head#1', answer: answer(200, 'hi', {}) }]),
    /x-request-id: \(absent\)/);
});

test('a long differing body is shown in part', () => {
  const long = 'x'.repeat(1000);
  const text = compareAnswers(scenario, [{ copy: 'base#1', answer: answer(200, long) },
    { copy: 'head#1', answer: answer(200, `${long}y`) }]);
  assert.match(text, /\(1001 bytes\)/);
  assert.ok(text.length < 1000);
});

test('requestOnce sends method, path, headers and body, and reads the answer', async (t) => {
  let seen = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      seen = { method: req.method, url: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks) };
      res.writeHead(201, { 'X-Request-Id': 'z' }).end('done');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const post = { name: 'p', compareHeaders: [], request: { method: 'POST', path: '/json?x=1',
    headers: { 'Content-Type': 'application/json' }, bodyFile: __filename } };
  const got = await requestOnce(post, server.address().port);
  assert.equal(got.status, 201);
  assert.equal(got.headers['x-request-id'], 'z');
  assert.equal(got.body.toString(), 'done');
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/json?x=1');
  assert.equal(seen.type, 'application/json');
  assert.equal(seen.body.toString(), require('node:fs').readFileSync(__filename, 'utf8'));
});

test('a WebSocket scenario is checked through lwload: one echo, or one window of messages to four subscribers', () => {
  assert.deepEqual(WS_CHECKS.ws, { connections: 1, requests: 1, what: 'echo one message' });
  // 32 deliveries to 4 subscribers are 8 messages: exactly the default window, all sent at once.
  assert.equal(WS_CHECKS.fanout.connections, 4);
  assert.equal(WS_CHECKS.fanout.requests, 32);
});

test('the decoded body view undoes gzip, deflate and brotli; what it cannot decode differs from every answer', () => {
  const text = Buffer.from('{"id":1,"name":"alpha bravo"}\n'.repeat(50));
  const coded = (coding, body) => ({ status: 200, headers: { 'content-encoding': coding }, body });
  const { decoded, bytes } = BODY_VIEWS;
  assert.deepEqual(decoded(coded('gzip', zlib.gzipSync(text, { level: 1 }))), text);
  assert.deepEqual(decoded(coded('GZIP ', zlib.gzipSync(text, { level: 9 }))), text);
  assert.deepEqual(decoded(coded('deflate', zlib.deflateSync(text))), text);
  assert.deepEqual(decoded(coded('br', zlib.brotliCompressSync(text))), text);
  assert.deepEqual(decoded(coded('identity', text)), text);
  assert.deepEqual(decoded({ status: 200, headers: {}, body: text }), text);
  assert.match(decoded(coded('compress', text)).toString(), /Content-Encoding compress, which the check cannot decode/);
  assert.match(decoded(coded('gzip', text)).toString(), /does not decode as gzip/);
  assert.deepEqual(bytes(coded('gzip', text)), text);

  // A scenario without compareBody compares bytes: two levels of one text differ there.
  const byBytes = { name: 'x', compareHeaders: [], request: {} };
  const answers = [{ copy: 'base#1', answer: coded('gzip', zlib.gzipSync(text, { level: 1 })) },
    { copy: 'head#1', answer: coded('gzip', zlib.gzipSync(text, { level: 9 })) }];
  assert.match(compareAnswers(byBytes, answers), /answer differently/);
  assert.equal(compareAnswers({ ...byBytes, compareBody: 'decoded' }, answers), null);
  assert.throws(() => compareAnswers({ ...byBytes, compareBody: 'gunzipped' }, answers), /no body view called/);
});
