'use strict';
// Issue 10: the calls frameworks written for uWebSockets.js (hyper-express, ultimate-express,
// uwebsockets-express) make, each as the framework makes it, with the result uWebSockets.js gives.

const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const uWS = require('../../addon/lib/index.js');
const { listen, raw } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');

const fixtures = path.join(__dirname, 'fixtures');

function headOf(answer) {
  return answer.slice(0, answer.indexOf('\r\n\r\n'));
}

test('every App has the server-name methods; on a plain App they are accepted and change nothing', async (t) => {
  const app = uWS.App();
  for (const method of ['addServerName', 'removeServerName', 'missingServerName', 'domain']) {
    assert.equal(typeof app[method], 'function', method);
  }
  // hyper-express's Server constructor, then routes as usual.
  assert.equal(app.missingServerName((hostname) => { throw new Error(`never called: ${hostname}`); }), app);
  assert.equal(app.addServerName('example.com', { key_file_name: 'k.pem', cert_file_name: 'c.pem' }), app);
  assert.equal(app.addServerName('*.example.org', {}), app);
  assert.equal(app.removeServerName('example.com'), app);
  assert.equal(app.domain('example.org'), app);
  app.get('/', (res) => res.end('served'));
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  t.after(() => app.close());
  const port = uWS.us_socket_local_port(token);
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 200 OK/);
  assert.match(answer, /\r\n\r\nserved$/);
  assert.throws(() => app.missingServerName('not a function'), TypeError);
  assert.throws(() => app.addServerName(42, {}), TypeError);
  assert.throws(() => app.addServerName('a.com', 'options'), TypeError);
  assert.throws(() => app.removeServerName({}), TypeError);
  assert.throws(() => app.domain(null), TypeError);
});

test('numbers given as strings are converted as uWebSockets.js converts them', async (t) => {
  const seen = [];
  const { port } = listen(t, (app) => {
    // ultimate-express answers HEAD and empty responses with endWithoutBody(contentLength.toString()).
    app.get('/head', (res) => res.endWithoutBody('100'));
    app.get('/try', (res) => { seen.push(res.tryEnd('abc', '3')); });
    app.get('/collect', (res) => {
      res.onAborted(() => {});
      res.collectBody('1024', (body) => res.end(body === null ? 'null' : 'empty'));
    });
    app.get('/refused', (res) => {
      for (const call of [() => res.endWithoutBody('a hundred'), () => res.endWithoutBody(null),
                          () => res.tryEnd('x', true), () => res.tryEnd('x', '1.5'), () => res.tryEnd('x', '-1')]) {
        try { call(); seen.push('no error'); } catch (error) { seen.push(error.constructor.name); }
      }
      res.end('refused');
    });
  });
  const head = await raw(port, 'HEAD /head HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(head, /\r\nContent-Length: 100\r\n/);
  assert.equal(head.slice(head.indexOf('\r\n\r\n') + 4), '');
  const tryEnd = await raw(port, 'GET /try HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(tryEnd, /Content-Length: 3\r\n[\s\S]*\r\n\r\nabc$/);
  assert.deepEqual(seen.shift(), [true, true]);
  assert.match(await raw(port, 'GET /collect HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), /empty$/);
  await raw(port, 'GET /refused HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.deepEqual(seen, ['TypeError', 'TypeError', 'TypeError', 'RangeError', 'RangeError']);
});

test('listen takes the port (and options) as a numeric string; a host or path with NUL is refused', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  let token = false;
  app.listen('127.0.0.1', '0', (listenSocket) => { token = listenSocket; });
  assert.ok(token);
  assert.ok(uWS.us_socket_local_port(token) > 0);
  let second = false;
  app.listen('127.0.0.1', '0', '0', (listenSocket) => { second = listenSocket; });
  assert.ok(second);
  assert.throws(() => app.listen('127.0.0.1', 'http', () => {}), TypeError);
  assert.throws(() => app.listen('3000', () => {}), { name: 'TypeError', message: /no port/ });
  assert.throws(() => app.listen('127.0.0.1', '70000', () => {}), RangeError);
  assert.throws(() => app.listen('127.0.0.1\0evil', 0, () => {}), { name: 'TypeError', message: /NUL/ });
  assert.throws(() => app.listen_unix(() => {}, '/tmp/a\0b'), { name: 'TypeError', message: /NUL/ });
});

test('a route pattern without a leading slash is accepted, never matches, and warns once per App', async () => {
  const script = `
    const uWS = require(${JSON.stringify(path.join(__dirname, '../../addon/lib/index.js'))});
    const net = require('node:net');
    const app = uWS.App();
    app.get('users', (res) => res.end('never')).any('*', (res) => res.end('never')).get('', (res) => res.end('never'));
    app.get('/users', (res) => res.end('users')).get('users', null);
    app.listen('127.0.0.1', 0, (token) => {
      const port = uWS.us_socket_local_port(token);
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => { text += chunk; });
      socket.on('close', () => {
        console.log(JSON.stringify([...text.matchAll(/HTTP\\/1\\.1 (\\d+)[^]*?\\r\\n\\r\\n(users|Not Found|never)/g)].map((m) => m[1] + ' ' + m[2])));
        app.close();
      });
      socket.write('GET /users HTTP/1.1\\r\\nHost: x\\r\\n\\r\\nGET /sers HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' +
                   'GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n');
    });`;
  const { code, stdout, stderr } = await runNode(['-e', script]);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout), ['200 users', '404 Not Found', '404 Not Found']);
  assert.equal(stderr.match(/does not start with '\/'/g).length, 1, stderr);
  assert.match(stderr, /app\.get: the route pattern "users"/);
});

test('a Connection header written by the handler is not duplicated', async (t) => {
  const { port } = listen(t, (app) => app.get('/sse', (res) => {
    // hyper-express's server-sent events.
    res.writeHeader('connection', 'keep-alive').writeHeader('content-type', 'text/event-stream');
    res.end('data: x\n\n');
  }));
  const answer = await raw(port, 'GET /sse HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.deepEqual(headOf(answer).match(/^connection:.*$/gim), ['connection: keep-alive']);
});

test('getRemoteAddressAsText returns what uWebSockets.js returns for IPv4, mapped and IPv6 peers', async (t) => {
  const seen = [];
  const handler = (res) => {
    seen.push([Buffer.from(res.getRemoteAddressAsText()).toString(), Buffer.from(res.getRemoteAddress()).length,
               res.getProxiedRemoteAddressAsText().byteLength]);
    res.end();
  };
  const ipv4 = uWS.App().get('/', handler);
  const dual = uWS.App().get('/', handler);
  t.after(() => { ipv4.close(); dual.close(); });
  let ipv4Port = 0;
  let dualPort = 0;
  ipv4.listen('127.0.0.1', 0, (token) => { ipv4Port = uWS.us_socket_local_port(token); });
  // No host: every address, IPv4 peers arrive as IPv4-mapped IPv6 addresses.
  dual.listen(0, (token) => { dualPort = uWS.us_socket_local_port(token); });
  await raw(ipv4Port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await raw(dualPort, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.deepEqual(seen[0], ['127.0.0.1', 4, 0]);
  assert.deepEqual(seen[1], ['0000:0000:0000:0000:0000:ffff:7f00:0001', 16, 0]);
  const ipv6 = await new Promise((resolve) => {
    const socket = net.connect({ port: dualPort, host: '::1' }, () => {
      socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(true));
    socket.resume();
  });
  if (!ipv6) return t.diagnostic('no IPv6 loopback on this machine: the IPv6 case was not run');
  assert.deepEqual(seen[2], ['0000:0000:0000:0000:0000:0000:0000:0001', 16, 0]);
});

// Opens a keep-alive connection and returns { send(bytes), next() }: next() resolves with the next complete
// Content-Length response.
function keepAlive(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = '';
    const waiting = [];
    const deliver = () => {
      while (waiting.length > 0) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number((/content-length: (\d+)/i.exec(buffer.slice(0, end)) || [0, 0])[1]);
        if (buffer.length < end + 4 + length) return;
        waiting.shift()(buffer.slice(0, end + 4 + length));
        buffer = buffer.slice(end + 4 + length);
      }
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => { buffer += chunk; deliver(); });
    socket.on('close', () => { for (const fn of waiting.splice(0)) fn(`closed; had ${JSON.stringify(buffer)}`); });
    socket.on('error', () => {});
    socket.on('connect', () => resolve({
      send: (bytes) => socket.write(bytes),
      next: () => new Promise((done) => { waiting.push(done); deliver(); }),
      close: () => socket.destroy(),
    }));
    socket.on('error', reject);
  });
}

test('a loop blocked 12 s (longer than every timeout) answers every request that waited', { timeout: 60000 }, async (t) => {
  const server = spawn(process.execPath, [path.join(fixtures, 'blocking-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => server.kill('SIGKILL'));
  const port = await new Promise((resolve, reject) => {
    server.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
    server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const first = await keepAlive(port);
  const second = await keepAlive(port);
  const halfHead = await keepAlive(port);
  const halfBody = await keepAlive(port);
  for (const client of [first, second]) {
    client.send('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(await client.next(), /^HTTP\/1\.1 200 /);
  }
  halfHead.send('GET /hello HTTP/1.1\r\n');
  halfBody.send('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nhalf');
  const blocker = await keepAlive(port);
  blocker.send('GET /block HTTP/1.1\r\nHost: x\r\n\r\n');
  const unblocked = blocker.next();
  await new Promise((resolve) => setTimeout(resolve, 500));
  // The server is blocked now: these wait in its sockets, unread, for the next 11.5 s.
  first.send('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
  second.send('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
  halfHead.send('Host: x\r\n\r\n');
  halfBody.send('done');
  const answers = await Promise.all([first.next(), second.next(), halfHead.next(), halfBody.next(), unblocked]);
  for (const client of [first, second, halfHead, halfBody, blocker]) client.close();
  assert.deepEqual(answers.map((answer) => answer.split('\r\n')[0]), Array(5).fill('HTTP/1.1 200 OK'));
  assert.deepEqual(answers.map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4)),
                   ['hello', 'hello', 'hello', 'halfdone', 'unblocked']);
});
