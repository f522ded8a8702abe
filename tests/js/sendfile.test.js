'use strict';
// res.sendFile (issue 44): one file from a handler, answered in the core: the request's conditions and range while
// the handler runs, the documented answer after an await (the whole file, or what options.requestHeaders copied),
// options.root's confinement, res unusable afterwards, the argument errors, and the handler's onAborted when a
// streamed file is cut off.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { listen, connect } = require('./helpers/server.js');
const { temporaryFolder, curl } = require('./helpers/files.js');

/** A folder of files for one test, with outside.txt beside it (never to be served through it). */
function folder(t, files) {
  const root = temporaryFolder(t, files);
  fs.writeFileSync(path.join(root, '..', 'outside.txt'), 'outside the root');
  return root;
}

const TEXT = 'Hello, sendFile!\n';

test('res.sendFile answers with the file, the request\'s conditions and range, and leaves res unusable', async (t) => {
  const root = folder(t, { 'hello.txt': TEXT });
  let returned;
  let afterwards;
  const { url } = listen(t, (app) => app.get('/file', (res) => {
    returned = res.sendFile(path.join(root, 'hello.txt')) === res;
    try {
      res.end('again');
    } catch (error) {
      afterwards = error;
    }
  }));
  const whole = await fetch(url('/file'));
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await whole.text(), TEXT);
  assert.equal(returned, true);
  assert.match(afterwards.message, /can no longer be used/);
  const etag = whole.headers.get('etag');
  assert.equal((await fetch(url('/file'), { headers: { 'if-none-match': etag } })).status, 304);
  const part = await fetch(url('/file'), { headers: { range: 'bytes=7-14' } });
  assert.equal(part.status, 206);
  assert.equal(await part.text(), 'sendFile');
});

test('options.root confines the path: a climb, a dotfile, a folder or a link out of it is 404', async (t) => {
  const root = folder(t, { 'hello.txt': TEXT, '.env': 'SECRET=1', 'docs/guide.txt': 'guide', '100%.txt': 'percent' });
  fs.symlinkSync(path.join(root, '..', 'outside.txt'), path.join(root, 'link-out.txt'));
  const { url } = listen(t, (app) => app.get('/files/:name', (res, req) => {
    res.sendFile(decodeURIComponent(req.getParameter(0)), { root, maxAge: 60 });
  }));
  const served = await fetch(url('/files/docs%2Fguide.txt'));
  assert.equal(served.status, 200);
  assert.equal(served.headers.get('cache-control'), 'public, max-age=60');
  assert.equal(await served.text(), 'guide');
  assert.equal(await (await fetch(url('/files/100%25.txt'))).text(), 'percent');
  for (const name of ['..%2Foutside.txt', '.env', 'docs', 'link-out.txt', 'missing.txt', '%2E%2E']) {
    const refused = await fetch(url(`/files/${name}`));
    assert.equal(refused.status, 404, name);
    const body = await refused.text();
    assert.ok(!body.includes('SECRET') && !body.includes('outside'), name);
  }
});

test('after an await the request is gone: the whole file, unless options.requestHeaders carries copies', async (t) => {
  const root = folder(t, { 'hello.txt': TEXT });
  const file = path.join(root, 'hello.txt');
  const { url } = listen(t, (app) => app
    .get('/later', async (res) => {
      res.onAborted(() => {});
      await new Promise((resolve) => setTimeout(resolve, 5));
      res.sendFile(file);
    })
    .get('/copied', async (res, req) => {
      const requestHeaders = { 'If-None-Match': req.getHeader('if-none-match'), range: req.getHeader('range') };
      res.onAborted(() => {});
      await new Promise((resolve) => setTimeout(resolve, 5));
      res.sendFile(file, { requestHeaders });
    }));
  const etag = (await fetch(url('/later'))).headers.get('etag');
  const later = await fetch(url('/later'), { headers: { 'if-none-match': etag, range: 'bytes=0-4' } });
  assert.equal(later.status, 200);
  assert.equal(await later.text(), TEXT);
  assert.equal((await fetch(url('/copied'), { headers: { 'if-none-match': etag } })).status, 304);
  const part = await fetch(url('/copied'), { headers: { range: 'bytes=-10' } });
  assert.equal(part.status, 206);
  assert.equal(await part.text(), 'sendFile!\n');
  const head = await curl(['-I', url('/later')]);
  assert.match(head, /^HTTP\/1\.1 200 OK/);
  assert.match(head, /Content-Length: 17/i);
});

test('a precompressed sibling goes to a client that accepts it (curl --compressed)', async (t) => {
  const page = '<p>a compressible paragraph, again and again</p>\n'.repeat(100);
  const root = folder(t, { 'page.html': page, 'page.html.gz': zlib.gzipSync(page) });
  const { url } = listen(t, (app) => app.get('/page', (res) => { res.sendFile('page.html', { root, compress: false }); }));
  const head = await curl(['-D', '-', '-o', '/dev/null', '-H', 'Accept-Encoding: gzip', url('/page')]);
  assert.match(head, /content-encoding: gzip/i);
  assert.match(head, /vary: Accept-Encoding/i);
  assert.equal(await curl(['--compressed', url('/page')]), page);
});

test('options.headers go with the answer (200, 206, 304); after writeHeader sendFile throws and res stays usable', async (t) => {
  const root = folder(t, { 'report.csv': 'a,b\n1,2\n' });
  const headers = { 'Content-Disposition': 'attachment; filename="report.csv"' };
  let refusal;
  const { url } = listen(t, (app) => app
    .get('/report', (res) => { res.sendFile('report.csv', { root, headers }); })
    .get('/late', (res) => {
      res.writeHeader('x-early', '1');
      try {
        res.sendFile('report.csv', { root });
      } catch (error) {
        refusal = error;
      }
      res.end('still usable');
    })
    .get('/bad', (res) => {
      try {
        res.sendFile('report.csv', { root, headers: { 'X-Bad': 'a\r\nb' } });
      } catch (error) {
        res.end(`${error.constructor.name}: ${error.message}`);
      }
    }));
  const whole = await fetch(url('/report'));
  assert.equal(whole.headers.get('content-disposition'), 'attachment; filename="report.csv"');
  assert.equal(await whole.text(), 'a,b\n1,2\n');
  const part = await fetch(url('/report'), { headers: { range: 'bytes=0-2' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-disposition'), 'attachment; filename="report.csv"');
  const notModified = await fetch(url('/report'), { headers: { 'if-none-match': whole.headers.get('etag') } });
  assert.equal(notModified.status, 304);
  assert.equal(await (await fetch(url('/late'))).text(), 'still usable');
  assert.equal(refusal.name, 'Error');
  assert.match(refusal.message, /^res\.sendFile: a status was written already .* options\.headers$/);
  assert.equal(await (await fetch(url('/bad'))).text(),
    'TypeError: res.sendFile: options.headers: "X-Bad" must be a header name (a token) with a value without CR, LF or NUL');
});

test('a streamed file cut off by the client runs the handler\'s onAborted once', async (t) => {
  const root = folder(t, { 'big.bin': Buffer.alloc(32 * 1024 * 1024, 'b') });
  let aborted = 0;
  let sawAbort;
  const abortSeen = new Promise((resolve) => { sawAbort = resolve; });
  const { port } = listen(t, (app) => app.get('/big', async (res) => {
    res.onAborted(() => { aborted++; sawAbort(); });
    await new Promise((resolve) => setTimeout(resolve, 1));
    res.sendFile(path.join(root, 'big.bin'));
  }));
  const socket = await connect(port);
  socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((resolve) => socket.once('data', resolve));
  socket.destroy();
  await abortSeen;
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(aborted, 1);
});

test('bad arguments throw a TypeError or RangeError naming them, an unusable root an Error; res stays usable', async (t) => {
  const root = folder(t, { 'hello.txt': TEXT });
  const errors = [];
  const { url } = listen(t, (app) => app.get('/', (res) => {
    const attempts = [
      () => res.sendFile(42),
      () => res.sendFile('hello.txt'),
      () => res.sendFile('/x', 'options'),
      () => res.sendFile('/x', { maxAge: -1 }),
      () => res.sendFile('/x', { dotfiles: 'sometimes' }),
      () => res.sendFile('/x', { root: 7 }),
      () => res.sendFile('/x', { requestHeaders: 'range' }),
      () => res.sendFile('x', { root: path.join(root, 'hello.txt') }),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
        errors.push('no error');
      } catch (error) {
        errors.push(`${error.constructor.name}: ${error.message}`);
      }
    }
    res.end('still usable');
  }));
  assert.equal(await (await fetch(url('/'))).text(), 'still usable');
  assert.deepEqual(errors.slice(0, 7), [
    'TypeError: res.sendFile: path must be a string',
    'TypeError: res.sendFile: path must be absolute unless options.root is given',
    'TypeError: res.sendFile: options must be an object',
    'RangeError: res.sendFile: options.maxAge must be an integer from 0 to 2147483647',
    'RangeError: res.sendFile: options.dotfiles must be \'deny\' or \'allow\'',
    'TypeError: res.sendFile: options.root must be a string',
    'TypeError: res.sendFile: options.requestHeaders must be an object of name: value',
  ]);
  assert.match(errors[7], /^Error: res\.sendFile: cannot open the root folder/);
});
