'use strict';
// app.compress (issue 44): handlers' responses coded by the core as they are written (end, write, tryEnd), checked
// with real clients (curl --compressed, fetch, and Node's http2 client over HTTP/2) and decoded with node:zlib; the
// arguments' errors.

const test = require('node:test');
const assert = require('node:assert/strict');
const http2 = require('node:http2');
const zlib = require('node:zlib');
const { listen } = require('./helpers/server.js');
const { curl } = require('./helpers/files.js');
const { http2Request } = require('./helpers/http2.js');

/** One response read raw by curl: { head, body } with the body as it came (still coded). */
async function rawGet(url, acceptEncoding) {
  const out = await curl(['-D', '-', '-H', `Accept-Encoding: ${acceptEncoding}`, url], 'buffer');
  const end = out.indexOf('\r\n\r\n');
  return { head: out.subarray(0, end).toString('latin1'), body: out.subarray(end + 4) };
}

const JSON_BODY = JSON.stringify(Array.from({ length: 800 }, (_, i) => ({ id: i, name: `item ${i % 17}`, ok: true })));

function routes(app) {
  return app
    .compress('/api/*')
    .get('/api/json', (res) => { res.writeHeader('content-type', 'application/json').end(JSON_BODY); })
    .get('/api/stream', (res) => {
      res.writeHeader('content-type', 'text/plain');
      for (let at = 0; at < JSON_BODY.length; at += 4000) res.write(JSON_BODY.slice(at, at + 4000));
      res.end();
    })
    .get('/api/later', async (res) => {
      res.onAborted(() => { res.aborted = true; });
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (!res.aborted) res.cork(() => res.writeHeader('content-type', 'application/json').end(JSON_BODY));
    })
    .get('/api/sized', (res) => {
      const body = Buffer.from(JSON_BODY);
      res.writeHeader('content-type', 'text/plain');
      res.tryEnd(body.subarray(0, 1000), body.length);
      res.tryEnd(body.subarray(1000), body.length);
    })
    .get('/other', (res) => { res.writeHeader('content-type', 'application/json').end(JSON_BODY); });
}

test('app.compress codes end(), write() and tryEnd() bodies by Accept-Encoding, and returns the app', async (t) => {
  let returned;
  const { app, url } = listen(t, (a) => { returned = routes(a); });
  assert.equal(returned, app);
  const gzip = await rawGet(url('/api/json'), 'gzip');
  assert.match(gzip.head, /content-encoding: gzip/i);
  assert.match(gzip.head, /vary: Accept-Encoding/i);
  assert.equal(zlib.gunzipSync(gzip.body).toString(), JSON_BODY);
  assert.ok(gzip.body.length < JSON_BODY.length / 4);
  const br = await rawGet(url('/api/json'), 'gzip, deflate, br');
  assert.match(br.head, /content-encoding: br/i);
  assert.equal(zlib.brotliDecompressSync(br.body).toString(), JSON_BODY);
  for (const path of ['/api/stream', '/api/later', '/api/sized']) {
    assert.equal(await curl(['--compressed', url(path)]), JSON_BODY, path);
    const coded = await rawGet(url(path), 'gzip');
    assert.match(coded.head, /content-encoding: gzip/i, path);
  }
  // fetch decodes what it asked for.
  const fetched = await fetch(url('/api/stream'), { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(fetched.headers.get('content-encoding'), 'gzip');
  assert.equal(await fetched.text(), JSON_BODY);
  // No Accept-Encoding, or a route no rule names: as written.
  const plain = await rawGet(url('/api/json'), 'identity');
  assert.doesNotMatch(plain.head, /content-encoding/i);
  assert.equal(plain.body.toString(), JSON_BODY);
  assert.doesNotMatch((await rawGet(url('/other'), 'gzip')).head, /content-encoding|vary/i);
});

test('over HTTP/2, end(), write() and tryEnd() bodies are coded alike, their ETag weakened, HEAD left alone',
     async (t) => {
  const uWS = require('../../addon/lib/index.js');
  const app = routes(uWS.App({ http2: true }))
    .get('/api/tagged', (res) => {
      res.writeHeader('content-type', 'application/json').writeHeader('etag', '"v1"').end(JSON_BODY);
    });
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  t.after(() => app.close());
  const session = http2.connect(`http://127.0.0.1:${uWS.us_socket_local_port(token)}`);
  t.after(() => session.close());
  /** Resolves with { headers, body } (the body as it came) for a request of path with Accept-Encoding. */
  const get = (path, acceptEncoding, method = 'GET') =>
    http2Request(session, { ':path': path, ':method': method, 'accept-encoding': acceptEncoding });
  for (const path of ['/api/json', '/api/stream', '/api/later', '/api/sized']) {
    const gzip = await get(path, 'gzip');
    assert.equal(gzip.headers['content-encoding'], 'gzip', path);
    assert.equal(gzip.headers.vary, 'accept-encoding', path);
    assert.equal(zlib.gunzipSync(gzip.body).toString(), JSON_BODY, path);
    const br = await get(path, 'br');
    assert.equal(br.headers['content-encoding'], 'br', path);
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), JSON_BODY, path);
    const plain = await get(path, 'identity');
    assert.equal(plain.headers['content-encoding'], undefined, path);
    assert.equal(plain.body.toString(), JSON_BODY, path);
  }
  const json = await get('/api/json', 'gzip');
  assert.ok(json.body.length < JSON_BODY.length / 4);
  assert.equal(Number(json.headers['content-length']), json.body.length, 'the coded length');
  assert.equal((await get('/api/tagged', 'gzip')).headers.etag, 'W/"v1"');
  const head = await get('/api/json', 'gzip', 'HEAD');
  assert.equal(head.headers['content-encoding'], undefined);
  assert.equal(head.body.length, 0);
  const other = await get('/other', 'gzip');
  assert.equal(other.headers['content-encoding'], undefined, 'no rule for the path');
  assert.equal(other.body.toString(), JSON_BODY);
});

test('options choose the codings, their order and the minimum size', async (t) => {
  const { url } = listen(t, (app) => app
    .compress('/*', { codings: ['gzip', 'br'], minBytes: 100000, gzipLevel: 1, brotliLevel: 5 })
    .get('/big', (res) => { res.writeHeader('content-type', 'text/html').end(JSON_BODY.repeat(10)); })
    .get('/small', (res) => { res.writeHeader('content-type', 'text/html').end(JSON_BODY); }));
  const big = await rawGet(url('/big'), 'br, gzip, zstd');
  assert.match(big.head, /content-encoding: gzip/i);
  assert.equal(zlib.gunzipSync(big.body).toString(), JSON_BODY.repeat(10));
  const small = await rawGet(url('/small'), 'gzip');
  assert.doesNotMatch(small.head, /content-encoding/i);
  assert.match(small.head, /vary: Accept-Encoding/i);
});

test('bad arguments throw a TypeError or RangeError naming them; a refused pattern an Error', (t) => {
  const { app } = listen(t, (a) => a.compress('/taken/*'));
  assert.throws(() => app.compress(42), { name: 'TypeError', message: 'app.compress: pattern must be a string' });
  assert.throws(() => app.compress('/a', 'gzip'), { name: 'TypeError', message: 'app.compress: options must be an object' });
  assert.throws(() => app.compress('/a', { codings: 'gzip' }),
    { name: 'TypeError', message: "app.compress: options.codings must be an array of 'br', 'zstd' and 'gzip'" });
  assert.throws(() => app.compress('/a', { codings: ['deflate'] }),
    { name: 'RangeError', message: "app.compress: options.codings: 'deflate' is not one of 'br', 'zstd' and 'gzip'" });
  assert.throws(() => app.compress('/a', { gzipLevel: 10 }), { name: 'RangeError', message: /options\.gzipLevel/ });
  assert.throws(() => app.compress('/a', { brotliLevel: 12 }), { name: 'RangeError', message: /options\.brotliLevel/ });
  assert.throws(() => app.compress('/a', { zstdLevel: 0 }), { name: 'RangeError', message: /options\.zstdLevel/ });
  assert.throws(() => app.compress('/a', { minBytes: -1 }), { name: 'RangeError', message: /options\.minBytes/ });
  assert.throws(() => app.compress('/taken/*'), { name: 'Error', message: 'app.compress: "/taken/*" has a rule already' });
  assert.throws(() => app.compress('nope'), { name: 'Error', message: 'app.compress: "nope" is not a route pattern' });
});
