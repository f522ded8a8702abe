'use strict';
// HttpRequest: headers, parameters, URL, method, query, forEach and setYield, over real clients.

const test = require('node:test');
const assert = require('node:assert/strict');
const { listen, raw } = require('./helpers/server.js');

test('getHeader reads lower-case names, "" when absent, and takes any RecognizedString', async (t) => {
  let seen;
  const { url } = listen(t, (app) => app.get('/', (res, req) => {
    seen = [req.getHeader('x-custom'), req.getHeader(Buffer.from('x-custom')), req.getHeader('x-missing'),
            req.getHeader('host').startsWith('127.0.0.1')];
    assert.throws(() => req.getHeader(5), TypeError);
    res.end();
  }));
  await (await fetch(url('/'), { headers: { 'X-Custom': 'value ü' } })).text();
  assert.deepEqual(seen, ['value ü', 'value ü', '', true]);
});

test('getParameter by index and by name', async (t) => {
  let seen;
  const { url } = listen(t, (app) => app.get('/users/:id/posts/:post', (res, req) => {
    seen = [req.getParameter(0), req.getParameter(1), req.getParameter(2), req.getParameter(1e9),
            req.getParameter('id'), req.getParameter('post'), req.getParameter('nope'),
            // Read as uWebSockets.js reads an index (ToUint32), and a name of digits that names nothing as one.
            req.getParameter(-1), req.getParameter(1.5), req.getParameter('1'), req.getParameter(NaN)];
    assert.throws(() => req.getParameter({}), TypeError);
    assert.throws(() => req.getParameter(null), TypeError);
    assert.throws(() => req.getParameter(), TypeError);
    res.end();
  }));
  await (await fetch(url('/users/42/posts/7'))).text();
  assert.deepEqual(seen, ['42', '7', '', '', '42', '7', '', '', '7', '7', '42']);
});

test('getUrl, getMethod (lower case) and getCaseSensitiveMethod', async (t) => {
  let seen;
  const { url } = listen(t, (app) => app.any('/*', (res, req) => {
    seen = [req.getUrl(), req.getMethod(), req.getCaseSensitiveMethod()];
    res.end();
  }));
  await (await fetch(url('/a/b%20c?q=1'), { method: 'PATCH' })).text();
  assert.deepEqual(seen, ['/a/b%20c', 'patch', 'PATCH']);
});

test('getQuery() gives the raw query, getQuery(key) the decoded value or undefined', async (t) => {
  const seen = [];
  const { port, url } = listen(t, (app) => app.get('/*', (res, req) => {
    seen.push([req.getQuery(), req.getQuery('a'), req.getQuery('b'), req.getQuery('flag'), req.getQuery('none'),
               req.getQuery(Buffer.from('a'))]);
    res.end();
  }));
  await (await fetch(url('/p?a=1%202&b=x+y%C3%A9&flag&empty='))).text();
  await (await fetch(url('/p'))).text();
  await raw(port, 'GET /p? HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.deepEqual(seen[0], ['a=1%202&b=x+y%C3%A9&flag&empty=', '1 2', 'x yé', '', undefined, '1 2']);
  assert.deepEqual(seen[1], [undefined, undefined, undefined, undefined, undefined, undefined]);
  assert.deepEqual(seen[2], ['', undefined, undefined, undefined, undefined, undefined]);
});

test('forEach visits every header in order and passes exceptions on', async (t) => {
  const seen = [];
  let thrown;
  const { port } = listen(t, (app) => app.get('/', (res, req) => {
    req.forEach((key, value) => seen.push(`${key}=${value}`));
    try { req.forEach(() => { throw new Error('stop'); }); } catch (error) { thrown = error.message; }
    assert.throws(() => req.forEach('x'), TypeError);
    res.end();
  }));
  await raw(port, 'GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nX-B: two\r\nConnection: close\r\n\r\n');
  assert.deepEqual(seen, ['host=h', 'x-a=1', 'x-b=two', 'connection=close']);
  assert.equal(thrown, 'stop');
});

test('setYield(true) hands the request to the next matching route', async (t) => {
  const order = [];
  const { url } = listen(t, (app) => {
    app.get('/a/:x', (res, req) => { order.push('param'); assert.equal(req.setYield(true), req); });
    app.get('/a/*', (res, req) => { order.push('wildcard'); req.setYield(true); });
    app.any('/*', (res, req) => { order.push('any'); res.end(`served by any, url ${req.getUrl()}`); });
  });
  assert.equal(await (await fetch(url('/a/b'))).text(), 'served by any, url /a/b');
  assert.deepEqual(order, ['param', 'wildcard', 'any']);
});

test('HEAD is answered by the GET route, without its body', async (t) => {
  const { port } = listen(t, (app) => app.get('/h', (res) => res.end('twelve bytes')));
  const answer = await raw(port, 'HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /Content-Length: 12\r\n/i);
  assert.ok(answer.endsWith('\r\n\r\n'));
});

test('a request no route takes gets 404', async (t) => {
  const { url } = listen(t, (app) => app.get('/only', (res) => res.end('x')));
  assert.equal((await fetch(url('/other'))).status, 404);
});
