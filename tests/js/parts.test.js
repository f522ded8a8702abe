'use strict';
// getParts (multipart bodies) and DeclarativeResponse (routes answered natively), over real clients.

const test = require('node:test');
const assert = require('node:assert/strict');
const { getParts, DeclarativeResponse } = require('../../addon/lib/index.js');
const { listen, raw } = require('./helpers/server.js');

test('getParts splits a multipart/form-data body sent by fetch', async (t) => {
  let parts;
  const { url } = listen(t, (app) => app.post('/upload', (res, req) => {
    const contentType = req.getHeader('content-type');
    res.onAborted(() => {});
    res.collectBody(1 << 20, (body) => {
      parts = getParts(body, contentType);
      res.end(String(parts.length));
    });
  }));
  const form = new FormData();
  form.append('title', 'héllo');
  form.append('file', new Blob([Buffer.from([0, 1, 2, 255])], { type: 'application/octet-stream' }), 'data.bin');
  assert.equal(await (await fetch(url('/upload'), { method: 'POST', body: form })).text(), '2');
  assert.equal(parts[0].name, 'title');
  assert.equal(Buffer.from(parts[0].data).toString(), 'héllo');
  assert.equal(parts[0].filename, undefined);
  assert.equal(parts[1].name, 'file');
  assert.equal(parts[1].filename, 'data.bin');
  assert.equal(parts[1].type, 'application/octet-stream');
  assert.deepEqual([...new Uint8Array(parts[1].data)], [0, 1, 2, 255]);
});

test('getParts: quoted boundaries, every body type, and undefined for non-multipart types', () => {
  const body = '--a;b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a;b--\r\n';
  for (const form of [body, Buffer.from(body), new TextEncoder().encode(body).buffer]) {
    const parts = getParts(form, 'multipart/form-data; boundary="a;b"');
    assert.equal(parts.length, 1);
    assert.equal(parts[0].name, 'x');
    assert.equal(Buffer.from(parts[0].data).toString(), '1');
  }
  assert.equal(getParts(body, 'application/json'), undefined);
  assert.equal(getParts(body, 'multipart/form-data'), undefined);
  assert.deepEqual(getParts('no delimiter here', 'multipart/form-data; boundary=zz'), []);
  assert.throws(() => getParts(42, 'multipart/form-data; boundary=zz'), TypeError);
});

test('DeclarativeResponse answers natively with headers, status, parameters, query and header values', async (t) => {
  const { port } = listen(t, (app) => {
    app.get('/hello/:name', new DeclarativeResponse()
      .writeStatus('201 Created')
      .writeHeader('content-type', 'text/plain')
      .writeBody()
      .write('Hello ')
      .writeParameterValue('name')
      .write(', q=')
      .writeQueryValue('q')
      .write(', ua=')
      .writeHeaderValue('user-agent')
      .end('!'));
    app.get('/plain', new DeclarativeResponse().writeHeader('x-kind', 'static').end('static body'));
  });
  const hello = await raw(port, 'GET /hello/ann?q=a%20b HTTP/1.1\r\nHost: x\r\nUser-Agent: probe\r\nConnection: close\r\n\r\n');
  assert.match(hello, /^HTTP\/1\.1 201 Created\r\n/);
  assert.match(hello, /content-type: text\/plain/);
  const body = hello.slice(hello.indexOf('\r\n\r\n') + 4).replace(/\r\n[0-9a-f]+\r\n/g, '').replace(/^[0-9a-f]+\r\n/, '');
  assert.match(body, /Hello ann, q=a b, ua=probe!/);
  const plain = await raw(port, 'GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(plain, /x-kind: static/);
  assert.ok(plain.endsWith('\r\n\r\nstatic body'));
});

test('DeclarativeResponse checks its operands', () => {
  assert.throws(() => new DeclarativeResponse().writeHeader('x'.repeat(256), 'v'), RangeError);
  assert.throws(() => new DeclarativeResponse().write('x'.repeat(65536)), RangeError);
  assert.throws(() => new DeclarativeResponse().writeHeader(1, 'v'), TypeError);
  const program = new DeclarativeResponse().end();
  assert.ok(program instanceof ArrayBuffer);
});
