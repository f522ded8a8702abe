'use strict';
// app.static (issue 44): a folder served by the core, from JavaScript: the arguments' errors, real clients (fetch
// and curl) on the same rules the C++ integration tests check on the wire, and the SPA fallback.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { listen, raw } = require('./helpers/server.js');
const { temporaryFolder, curl } = require('./helpers/files.js');
const uWS = require('../../addon/lib/index.js');

const folder = temporaryFolder;

const FILES = {
  'index.html': '<h1>home</h1>',
  'app.js': 'console.log("app");',
  'styles/site.css': 'body { color: red }',
  'data.json': '{"a":1}',
  '.env': 'SECRET=1',
  '.well-known/security.txt': 'Contact: mailto:security@example.com',
};

test('app.static serves a folder with its types, validators and index, and returns the app', async (t) => {
  const root = folder(t, FILES);
  let returned;
  const { app, url } = listen(t, (a) => { returned = a.static('/', root); });
  assert.equal(returned, app);
  const script = await fetch(url('/app.js'));
  assert.equal(script.status, 200);
  assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(script.headers.get('etag'), /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
  assert.match(script.headers.get('last-modified'), / GMT$/);
  assert.equal(script.headers.get('accept-ranges'), 'bytes');
  assert.equal(await script.text(), 'console.log("app");');
  assert.equal(await (await fetch(url('/'))).text(), '<h1>home</h1>');
  assert.equal((await fetch(url('/styles/site.css'))).headers.get('content-type'), 'text/css; charset=utf-8');
  const folderWithoutSlash = await fetch(url('/styles'), { redirect: 'manual' });
  assert.equal(folderWithoutSlash.status, 301);
  assert.equal(folderWithoutSlash.headers.get('location'), '/styles/');
});

test('conditional requests and ranges through fetch', async (t) => {
  const root = folder(t, FILES);
  const { url } = listen(t, (app) => app.static('/assets', root, { maxAge: 3600, immutable: true }));
  const first = await fetch(url('/assets/data.json'));
  assert.equal(first.headers.get('cache-control'), 'public, max-age=3600, immutable');
  const etag = first.headers.get('etag');
  const notModified = await fetch(url('/assets/data.json'), { headers: { 'if-none-match': etag } });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.headers.get('etag'), etag);
  const range = await fetch(url('/assets/data.json'), { headers: { range: 'bytes=1-3' } });
  assert.equal(range.status, 206);
  assert.equal(range.headers.get('content-range'), 'bytes 1-3/7');
  assert.equal(await range.text(), '"a"');
  const unsatisfiable = await fetch(url('/assets/data.json'), { headers: { range: 'bytes=50-' } });
  assert.equal(unsatisfiable.status, 416);
  assert.equal(unsatisfiable.headers.get('content-range'), 'bytes */7');
});

test('curl: HEAD, a range and a path that tries to leave the folder', async (t) => {
  const root = folder(t, FILES);
  fs.writeFileSync(path.join(root, '..', 'secret.txt'), 'outside');
  const { url } = listen(t, (app) => app.static('/', root));
  const head = await curl(['-I', url('/app.js')]);
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(head, /content-length: 19\r\n/i);
  const part = await curl(['-r', '0-6', url('/app.js')]);
  assert.equal(part, 'console');
  for (const target of ['/../secret.txt', '/%2e%2e/secret.txt', '/styles/..%2f..%2fsecret.txt', '/..%5csecret.txt']) {
    const answer = await curl(['--path-as-is', '-i', url(target)]);
    assert.match(answer, /^HTTP\/1\.1 (400|404) /, target);
    assert.doesNotMatch(answer, /outside/, target);
  }
});

test('dotfiles are 404 by default, .well-known is served, and dotfiles: "allow" serves them', async (t) => {
  const root = folder(t, FILES);
  const { url } = listen(t, (app) => app.static('/', root).static('/open', root, { dotfiles: 'allow' }));
  assert.equal((await fetch(url('/.env'))).status, 404);
  assert.equal(await (await fetch(url('/.well-known/security.txt'))).text(), 'Contact: mailto:security@example.com');
  assert.equal(await (await fetch(url('/open/.env'))).text(), 'SECRET=1');
});

test('other methods get 405 with Allow', async (t) => {
  const root = folder(t, FILES);
  const { port } = listen(t, (app) => app.static('/', root));
  const answer = await raw(port, 'DELETE /app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  assert.match(answer, /\r\nAllow: GET, HEAD\r\n/);
});

test('fallthrough: a miss goes on to the app\'s own routes, an SPA\'s fallback among them', async (t) => {
  const root = folder(t, FILES);
  const { url } = listen(t, (app) => app
    .static('/', root, { fallthrough: true })
    .get('/api/*', (res) => res.end('api'))
    .get('/*', (res) => res.end('spa')));
  assert.equal(await (await fetch(url('/app.js'))).text(), 'console.log("app");');
  assert.equal(await (await fetch(url('/api/users'))).text(), 'api');
  assert.equal(await (await fetch(url('/settings/profile'))).text(), 'spa');
  assert.equal(await (await fetch(url('/.env'))).text(), 'spa');
});

test('a precompressed variant goes to the clients that accept it (curl --compressed), unless precompressed: false', async (t) => {
  const zlib = require('node:zlib');
  const script = 'console.log("a script long enough to be worth compressing");\n'.repeat(40);
  const root = folder(t, { 'big.js': script, 'big.js.gz': zlib.gzipSync(script, { level: 9 }) });
  const { url } = listen(t, (app) => app.static('/', root).static('/raw', root, { precompressed: false }));
  const headers = await curl(['-s', '-D', '-', '-o', '/dev/null', '-H', 'Accept-Encoding: gzip', url('/big.js')]);
  assert.match(headers, /content-encoding: gzip\r\n/i);
  assert.match(headers, /vary: Accept-Encoding\r\n/i);
  // curl --compressed decodes what it receives: the script, whole.
  assert.equal(await curl(['--compressed', url('/big.js')]), script);
  const raw = await curl(['-s', '-D', '-', '-o', '/dev/null', '-H', 'Accept-Encoding: gzip', url('/raw/big.js')]);
  assert.doesNotMatch(raw, /content-encoding/i);
});

test('compress: variants made with Node\'s own brotli and gzip, and its zstd where this Node has one', async (t) => {
  const zlib = require('node:zlib');
  const script = 'export const handler = (request) => request.url;\n'.repeat(300);
  const root = folder(t, { 'app.js': script });
  const { url } = listen(t, (app) => app.static('/', root));
  /** The headers and body curl gets for coding, once it is served coded (variants are made in the background). */
  async function coded(coding) {
    const deadline = Date.now() + 10000;
    while (Date.now() < deadline) {
      const out = await curl(['-D', '-', '-H', `Accept-Encoding: ${coding}`, url('/app.js')]);
      const [head, body] = [out.slice(0, out.indexOf('\r\n\r\n')), out.slice(out.indexOf('\r\n\r\n') + 4)];
      if (new RegExp(`content-encoding: ${coding}\r?$`, 'im').test(head)) return { head, body: Buffer.from(body, 'latin1') };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return null;
  }
  const brotli = await coded('br');
  assert.ok(brotli, 'a brotli variant');
  assert.equal(zlib.brotliDecompressSync(brotli.body).toString(), script);
  assert.match(brotli.head, /etag: W\//i);
  const gzip = await coded('gzip');
  assert.ok(gzip, 'a gzip variant');
  assert.equal(zlib.gunzipSync(gzip.body).toString(), script);
  if (process.versions.zstd !== undefined) {
    const zstd = await coded('zstd');
    assert.ok(zstd, `a zstd variant on Node ${process.version}, whose zstd is ${process.versions.zstd}`);
    assert.equal(zlib.zstdDecompressSync(zstd.body).toString(), script);
  } else {
    // No zstd in this Node: never offered.
    const answer = await curl(['-D', '-', '-o', '/dev/null', '-H', 'Accept-Encoding: zstd', url('/app.js')]);
    assert.doesNotMatch(answer, /content-encoding/i);
  }
});

test('index: false serves no folder, and mimeTypes adds types', async (t) => {
  const root = folder(t, { ...FILES, 'notes.md': '# notes' });
  const { url } = listen(t, (app) => app.static('/', root, { index: false, mimeTypes: { md: 'text/markdown; charset=utf-8' } }));
  assert.equal((await fetch(url('/'))).status, 404);
  assert.equal((await fetch(url('/notes.md'))).headers.get('content-type'), 'text/markdown; charset=utf-8');
});

test('bad arguments throw a TypeError or RangeError naming them; a folder that cannot be opened an Error', (t) => {
  const root = folder(t, FILES);
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.static(1, root), { name: 'TypeError', message: /urlPrefix must be a string/ });
  assert.throws(() => app.static('/', null), { name: 'TypeError', message: /rootDirectory must be a string/ });
  assert.throws(() => app.static('/', root, 'fast'), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => app.static('/', root, { maxAge: -1 }), { name: 'RangeError', message: /options\.maxAge/ });
  assert.throws(() => app.static('/', root, { maxAge: 'soon' }), { name: 'TypeError', message: /options\.maxAge/ });
  assert.throws(() => app.static('/', root, { precompressed: 'yes' }), { name: 'TypeError', message: /options\.precompressed/ });
  assert.throws(() => app.static('/', root, { etag: 1 }), { name: 'TypeError', message: /options\.etag must be a boolean/ });
  assert.throws(() => app.static('/', root, { dotfiles: 'ignore' }), { name: 'RangeError', message: /options\.dotfiles/ });
  assert.throws(() => app.static('/', root, { index: 3 }), { name: 'TypeError', message: /options\.index/ });
  assert.throws(() => app.static('/', root, { cacheBytes: 1.5 }), { name: 'RangeError', message: /options\.cacheBytes/ });
  assert.throws(() => app.static('/', root, { mimeTypes: { md: 5 } }), { name: 'TypeError', message: /options\.mimeTypes\.md/ });
  assert.throws(() => app.static('/', root, { mimeTypes: { md: 'text/plain\r\nSet-Cookie: a=b' } }),
                { name: 'Error', message: /app\.static: mimeTypes/ });
  assert.throws(() => app.static('/', path.join(root, 'missing')), { name: 'Error', message: /cannot open the folder/ });
  assert.throws(() => app.static('assets', root), { name: 'Error', message: /prefix/ });
  assert.throws(() => app.static('/', path.join(root, 'app.js')), { name: 'Error', message: /cannot open the folder/ });
});
