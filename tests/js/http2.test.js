'use strict';
// HTTP/2 from JavaScript (the App's `http2: true`): Node's own http2 client, with prior knowledge on an App and by
// ALPN on an SSLApp, against routes written for uWebSockets.js: requests with bodies, headers both ways, streams in
// parallel on one connection, a stream reset by the client (onAborted), and the option's checks.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http2 = require('node:http2');
const os = require('node:os');
const path = require('node:path');
const uWS = require('../../addon/lib/index.js');
const { certificates } = require('./helpers/certificates.js');
const { http2Request } = require('./helpers/http2.js');

const certs = certificates();
const ca = fs.readFileSync(certs.ca);

function routes(app, events) {
  app.get('/hello', (res) => res.end('Hello world!'));
  app.get('/echo/:word', (res, req) => {
    const answer = [req.getMethod(), req.getUrl(), req.getQuery(), req.getParameter(0), req.getHeader('host'),
      req.getHeader('x-custom')].join(' ');
    res.writeStatus('201 Created').writeHeader('X-Answer', 'yes').writeHeader('Connection', 'keep-alive').end(answer);
  });
  app.post('/length', (res) => {
    let total = 0;
    res.onAborted(() => events.push('aborted'));
    res.onData((chunk, isLast) => {
      total += chunk.byteLength;
      if (isLast) res.end(String(total));
    });
  });
  app.post('/framing', (res, req) => {
    const framing = `${req.getHeader('content-length') || '-'} ${req.getHeader('transfer-encoding') || '-'}`;
    res.onAborted(() => events.push('aborted'));
    res.collectBody(1024, (body) => res.end(`${framing} ${body.byteLength}`));
  });
  app.get('/later', (res) => {
    res.onAborted(() => events.push('later aborted'));
    events.push('later reached');
  });
}

function listen(t, app) {
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token, 'listen failed');
  t.after(() => app.close());
  return uWS.us_socket_local_port(token);
}

/** An App or SSLApp with http2 and the routes, listening, and a session of Node's http2 client to it. */
function connect(t, tls) {
  const events = [];
  const app = tls
    ? uWS.SSLApp({ key_file_name: certs.localhost.key, cert_file_name: certs.localhost.cert, http2: true })
    : uWS.App({ http2: true });
  routes(app, events);
  const port = listen(t, app);
  const session = http2.connect(`${tls ? 'https' : 'http'}://localhost:${port}`, tls ? { ca } : {});
  t.after(() => session.close());
  return { events, session, port };
}

/** Resolves once condition() holds, checked every few milliseconds; rejects if it does not within ten seconds. */
async function until(condition) {
  const deadline = Date.now() + 10000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still false after 10 s: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Sends one request on session; resolves with { headers, body } with the body as text. */
async function request(session, headers, body) {
  const answer = await http2Request(session, headers, body);
  return { headers: answer.headers, body: answer.body.toString() };
}

for (const tls of [false, true]) {
  const name = tls ? 'SSLApp (ALPN h2)' : 'App (prior knowledge)';

  test(`${name}: routes answer Node's http2 client as they answer HTTP/1.1`, async (t) => {
    const { events, session, port } = connect(t, tls);

    const hello = await request(session, { ':path': '/hello' });
    assert.equal(hello.headers[':status'], 200);
    assert.equal(hello.body, 'Hello world!');
    assert.equal(hello.headers['content-length'], '12');

    const echo = await request(session, { ':path': '/echo/word?a=1', 'x-custom': 'value' });
    assert.equal(echo.headers[':status'], 201);
    assert.equal(echo.headers['x-answer'], 'yes');
    assert.equal(echo.headers.connection, undefined, 'a connection-specific field is dropped');
    assert.equal(echo.body, `get /echo/word a=1 word localhost:${port} value`);

    const upload = await request(session, { ':path': '/length', ':method': 'POST' }, Buffer.alloc(300000, 1));
    assert.equal(upload.body, '300000');

    // A body without content-length looks as a chunked one does on HTTP/1.1; frameworks read a body only then.
    const framing = (headers, body) => request(session, { ':path': '/framing', ':method': 'POST', ...headers }, body);
    assert.equal((await framing({}, 'abc')).body, '- chunked 3');
    assert.equal((await framing({ 'content-length': '3' }, 'abc')).body, '3 - 3');

    // Twenty streams in flight on the one connection.
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(session, { ':path': '/hello' })));
    assert.deepEqual(answers.map((a) => a.body), Array(20).fill('Hello world!'));
    assert.deepEqual(events, []);
  });

  test(`${name}: a stream the client resets runs onAborted`, async (t) => {
    const { events, session } = connect(t, tls);
    const stream = session.request({ ':path': '/later' });
    stream.on('error', () => {});
    await until(() => events.length === 1);
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await until(() => events.length === 2);
    assert.deepEqual(events, ['later reached', 'later aborted']);
    // The connection goes on.
    assert.equal((await request(session, { ':path': '/hello' })).body, 'Hello world!');
  });
}

test('a client that allows no HPACK table (headerTableSize 0) is answered, request after request', { timeout: 10000 },
     async (t) => {
  const app = uWS.App({ http2: true });
  app.get('/hello', (res) => res.end('Hello world!'));
  const port = listen(t, app);
  // Node's client (nghttp2) refuses a response block that does not start with the table size update it asked for.
  const session = http2.connect(`http://localhost:${port}`, { settings: { headerTableSize: 0 } });
  t.after(() => session.close());
  for (let i = 0; i < 3; i++) {
    const answer = await request(session, { ':path': '/hello' });
    assert.equal(answer.body, 'Hello world!');
    assert.match(answer.headers.date, /GMT$/);
  }
});

test('app.static and res.sendFile over HTTP/2: a cached file, a streamed one, a range and a 304', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-h2-static-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const small = Buffer.from('body { color: teal; }\n');
  // Past the in-memory cache (256 KiB): read from the file as the windows open.
  const large = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < large.length; i++) large[i] = 32 + (i * 7919 % 95);
  fs.writeFileSync(path.join(root, 'small.css'), small);
  fs.writeFileSync(path.join(root, 'large.txt'), large);
  const app = uWS.App({ http2: true })
    .static('/files', root)
    .get('/one', (res) => res.sendFile(path.join(root, 'large.txt')));
  const port = listen(t, app);
  const session = http2.connect(`http://localhost:${port}`);
  t.after(() => session.close());
  /** { headers, body } of a GET of path with extra request fields, the body as a Buffer. */
  const get = (path, fields = {}) => http2Request(session, { ':path': path, ...fields });
  const css = await get('/files/small.css', { 'accept-encoding': 'identity' });
  assert.equal(css.headers[':status'], 200);
  assert.match(css.headers['content-type'], /^text\/css/);
  assert.ok(css.body.equals(small));
  const again = await get('/files/small.css', { 'accept-encoding': 'identity', 'if-none-match': css.headers.etag });
  assert.equal(again.headers[':status'], 304);
  assert.equal(again.body.length, 0);
  for (const target of ['/files/large.txt', '/one']) {
    const whole = await get(target, { 'accept-encoding': 'identity' });
    assert.equal(whole.headers[':status'], 200, target);
    assert.equal(Number(whole.headers['content-length']), large.length, target);
    assert.ok(whole.body.equals(large), target);
  }
  const part = await get('/files/large.txt', { range: 'bytes=1000000-1000099', 'accept-encoding': 'identity' });
  assert.equal(part.headers[':status'], 206);
  assert.equal(part.headers['content-range'], `bytes 1000000-1000099/${large.length}`);
  assert.ok(part.body.equals(large.subarray(1000000, 1000100)));
});

test('app.close({ drainMs }) sends GOAWAY, lets a stream in flight finish and closes the connection', async (t) => {
  const app = uWS.App({ http2: true });
  let pending;
  app.get('/slow', (res) => {
    res.onAborted(() => { pending = null; });
    pending = res;
  });
  const port = listen(t, app);
  const session = http2.connect(`http://localhost:${port}`);
  const goaway = new Promise((resolve) => session.on('goaway', (code) => resolve(code)));
  const closed = new Promise((resolve) => session.on('close', resolve));
  const answer = request(session, { ':path': '/slow' });
  await until(() => pending);
  let drained = false;
  app.close({ drainMs: 5000 }, () => { drained = true; });
  assert.equal(await goaway, http2.constants.NGHTTP2_NO_ERROR);
  pending.end('finished');
  assert.equal((await answer).body, 'finished');
  await closed;
  await until(() => drained);
});

test('app.close() aborts HTTP/2 streams in flight', async (t) => {
  const app = uWS.App({ http2: true });
  const events = [];
  app.get('/slow', (res) => {
    res.onAborted(() => events.push('aborted'));
    events.push('reached');
  });
  const port = listen(t, app);
  const session = http2.connect(`http://localhost:${port}`);
  session.on('error', () => {});
  const stream = session.request({ ':path': '/slow' });
  stream.on('error', () => {});
  const closed = new Promise((resolve) => session.on('close', resolve));
  await until(() => events.length === 1);
  app.close();
  await closed;
  assert.deepEqual(events, ['reached', 'aborted']);
});

test('without http2, an App answers HTTP/2 prior knowledge as a bad HTTP/1.1 request', async (t) => {
  const app = uWS.App();
  app.get('/hello', (res) => res.end('Hello world!'));
  const port = listen(t, app);
  const session = http2.connect(`http://localhost:${port}`);
  session.on('error', () => {});
  const failed = await new Promise((resolve) => {
    const stream = session.request({ ':path': '/hello' });
    stream.on('error', () => resolve(true));
    stream.on('close', () => resolve(true));
    stream.on('response', () => resolve(false));
    stream.end();
  });
  assert.ok(failed);
  session.destroy();
});

test('options.http2 is checked', () => {
  assert.throws(() => uWS.App({ http2: 'yes' }), { name: 'TypeError', message: /options\.http2 must be a boolean/ });
  assert.doesNotThrow(() => uWS.App({ http2: false }).close());
});
