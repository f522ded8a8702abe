'use strict';
// Issue 18: real frameworks, from npm, on loopwire, as their users run them: a socket.io server attached to an App
// (io.attachApp, the engine.io uWebSockets.js server underneath) with socket.io-client over WebSocket and over
// polling upgraded to WebSocket; hyper-express and ultimate-express, whose require('uWebSockets.js') resolves to
// loopwire through the root package.json's overrides (tests/js/fixtures/uWebSockets.js); and both of them, unchanged
// but for the App's `http2` option, answering Node's http2 client as they answer HTTP/1.1 (issue 43).

const test = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const WebSocket = require('ws');
const uWS = require('../../addon/lib/index.js');
const { Server } = require('socket.io');
const { io: connectIo } = require('socket.io-client');
const http2 = require('node:http2');
const HyperExpress = require('hyper-express');
const { http2Request } = require('./helpers/http2.js');
const express = require('ultimate-express');

/** A socket.io server on a loopwire App listening on a free port; both closed when the test ends. */
function socketIoServer(t, setup) {
  const app = uWS.App();
  const io = new Server();
  io.attachApp(app);
  setup(io);
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token, 'listen');
  t.after(() => { io.close(); app.close(); });
  return uWS.us_socket_local_port(token);
}

/** Resolves once events holds event, polling; rejects after 5 s with what it holds. */
function waitForEvent(events, event) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 5000;
    const poll = setInterval(() => {
      if (events.includes(event)) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`no "${event}" in ${JSON.stringify(events)}`));
      }
    }, 5);
  });
}

/** A socket.io-client connected to port; resolves once connected. Closed when the test ends. */
async function ioClient(t, port, options = {}) {
  const client = connectIo(`http://127.0.0.1:${port}`, { reconnectionDelay: 50, reconnectionDelayMax: 100, ...options });
  t.after(() => client.close());
  await once(client, 'connect');
  return client;
}

test('socket.io on an App: rooms, acknowledgements and binary, over WebSocket and over polling upgraded',
     async (t) => {
  const port = socketIoServer(t, (io) => {
    io.on('connection', (socket) => {
      socket.on('join', (room, ack) => { socket.join(room); ack(`joined ${room}`); });
      socket.on('shout', (room, text) => io.to(room).emit('heard', text));
      socket.on('double', (bytes, ack) => ack(Buffer.concat([bytes, bytes])));
      socket.on('whoami', (ack) => ack(socket.conn.transport.name));
    });
  });
  const viaWebSocket = await ioClient(t, port, { transports: ['websocket'] });
  const viaPolling = await ioClient(t, port);
  const outsider = await ioClient(t, port, { transports: ['websocket'] });
  assert.equal(await viaWebSocket.emitWithAck('whoami'), 'websocket');
  // The default client starts with long polling, then upgrades to a WebSocket on the same App.
  if (viaPolling.io.engine.transport.name !== 'websocket') await once(viaPolling.io.engine, 'upgrade');
  assert.equal(await viaPolling.emitWithAck('whoami'), 'websocket');

  assert.equal(await viaWebSocket.emitWithAck('join', 'lobby'), 'joined lobby');
  assert.equal(await viaPolling.emitWithAck('join', 'lobby'), 'joined lobby');
  let outsiderHeard = false;
  outsider.on('heard', () => { outsiderHeard = true; });
  const heard = Promise.all([once(viaWebSocket, 'heard'), once(viaPolling, 'heard')]);
  outsider.emit('shout', 'lobby', 'hello room');
  assert.deepEqual((await heard).map(([text]) => text), ['hello room', 'hello room']);
  assert.equal(outsiderHeard, false);

  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  const doubled = await viaPolling.emitWithAck('double', bytes);
  assert.ok(Buffer.isBuffer(doubled));
  assert.deepEqual([...doubled], [...bytes, ...bytes]);
});

test('socket.io on an App: a disconnect is seen by the server, and a dropped connection reconnects', async (t) => {
  const events = [];
  const port = socketIoServer(t, (io) => {
    io.on('connection', (socket) => {
      events.push('connection');
      socket.on('disconnect', (reason) => events.push(`disconnect: ${reason}`));
      socket.on('drop me', () => socket.conn.close());
      socket.on('echo', (text, ack) => ack(text));
    });
  });
  const client = await ioClient(t, port, { transports: ['websocket'] });
  const reconnected = once(client, 'connect');
  client.emit('drop me');
  const [reason] = await once(client, 'disconnect');
  assert.equal(reason, 'transport close');
  await reconnected;
  assert.equal(await client.emitWithAck('echo', 'after the reconnect'), 'after the reconnect');
  const left = waitForEvent(events, 'disconnect: client namespace disconnect');
  client.disconnect();
  await left;
  assert.deepEqual(events, ['connection', 'disconnect: forced close', 'connection',
                            'disconnect: client namespace disconnect']);
});

test('hyper-express: WebSocket routes beside HTTP routes and a catch-all, on loopwire', async (t) => {
  assert.equal(require('uWebSockets.js'), uWS, 'hyper-express gets loopwire');
  const server = new HyperExpress.Server();
  t.after(() => server.close());
  server.get('/status', (request, response) => response.send('ok'));
  server.upgrade('/chat', (request, response) => response.upgrade({ user: request.query_parameters.user }));
  server.ws('/chat', (ws) => {
    ws.send(`welcome ${ws.context.user}`);
    ws.on('message', (message) => ws.send(`${ws.context.user}: ${message}`));
  });
  server.any('/*', (request, response) => response.status(404).send('not here'));
  await server.listen(0, '127.0.0.1');
  const port = server.port;

  const status = await fetch(`http://127.0.0.1:${port}/status`);
  assert.equal(status.status, 200);
  assert.equal(await status.text(), 'ok');
  const missing = await fetch(`http://127.0.0.1:${port}/nowhere`);
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), 'not here');

  const client = new WebSocket(`ws://127.0.0.1:${port}/chat?user=ada`);
  t.after(() => client.terminate());
  const messages = [];
  const received = (count) => new Promise((resolve) => {
    const check = () => { if (messages.length >= count) resolve(); };
    client.on('message', (data) => { messages.push(data.toString()); check(); });
    check();
  });
  const two = received(2);
  await once(client, 'open');
  client.send('hi');
  await two;
  assert.deepEqual(messages, ['welcome ada', 'ada: hi']);
  const closed = once(client, 'close');
  client.close(1000);
  assert.equal((await closed)[0], 1000);
});

/** The answers of a framework's routes to each request of REQUESTS, from Node's http2 client on the same port. */
async function http2Answers(t, port) {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  t.after(() => session.close());
  const answers = [];
  for (const { method, path, body } of REQUESTS) {
    const { headers, body: answer } =
      await http2Request(session, { ':method': method, ':path': path, 'content-type': 'application/json' }, body);
    answers.push(answerOf(headers[':status'], (name) => headers[name], answer.toString()));
  }
  assert.equal(session.alpnProtocol, 'h2c', 'the answers came over HTTP/2');
  return answers;
}

/** The same answers from fetch (HTTP/1.1). */
async function http11Answers(port) {
  const answers = [];
  for (const { method, path, body } of REQUESTS) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`,
                                 { method, body, headers: { 'content-type': 'application/json' } });
    answers.push(answerOf(response.status, (name) => response.headers.get(name) ?? undefined, await response.text()));
  }
  return answers;
}

// What the framework apps below are asked, on each protocol.
const REQUESTS = [
  { method: 'GET', path: '/status' },
  { method: 'GET', path: '/users/42?fields=name' },
  { method: 'POST', path: '/echo', body: JSON.stringify({ word: 'hello', count: 3 }) },
  { method: 'GET', path: '/nowhere' },
];

/** What a test compares of an answer: the status, the body, and the headers the routes set. */
function answerOf(status, header, body) {
  return { status: Number(status), body, type: header('content-type'), custom: header('x-route') };
}

const EXPECTED_ANSWERS = [
  { status: 200, body: 'ok', type: 'text/plain; charset=utf-8', custom: 'status' },
  { status: 200, body: '{"id":"42","fields":"name"}', type: 'application/json; charset=utf-8', custom: 'user' },
  { status: 201, body: '{"word":"HELLO","count":3}', type: 'application/json; charset=utf-8', custom: 'echo' },
  { status: 404, body: 'not here', type: 'text/plain; charset=utf-8', custom: undefined },
];

test('hyper-express over HTTP/2: its routes answer Node\'s http2 client as they answer HTTP/1.1', async (t) => {
  const server = new HyperExpress.Server({ http2: true });
  t.after(() => server.close());
  server.get('/status', (request, response) => response.header('x-route', 'status').type('text').send('ok'));
  server.get('/users/:id', (request, response) => response.header('x-route', 'user')
    .json({ id: request.path_parameters.id, fields: request.query_parameters.fields }));
  server.post('/echo', async (request, response) => {
    const { word, count } = await request.json();
    response.status(201).header('x-route', 'echo').json({ word: word.toUpperCase(), count });
  });
  server.any('/*', (request, response) => response.status(404).type('text').send('not here'));
  await server.listen(0, '127.0.0.1');

  const overHttp11 = await http11Answers(server.port);
  const overHttp2 = await http2Answers(t, server.port);
  assert.deepEqual(overHttp2, overHttp11);
  assert.deepEqual(overHttp2.map(({ status, body, custom }) => ({ status, body, custom })),
                   EXPECTED_ANSWERS.map(({ status, body, custom }) => ({ status, body, custom })));
});

test('ultimate-express over HTTP/2: its routes answer Node\'s http2 client as they answer HTTP/1.1', async (t) => {
  assert.equal(require('uWebSockets.js'), uWS, 'ultimate-express gets loopwire');
  const app = express({ uwsOptions: { http2: true } });
  app.use(express.json());
  app.get('/status', (request, response) => response.set('x-route', 'status').type('text').send('ok'));
  app.get('/users/:id', (request, response) => response.set('x-route', 'user')
    .json({ id: request.params.id, fields: request.query.fields }));
  app.post('/echo', (request, response) => response.status(201).set('x-route', 'echo')
    .json({ word: request.body.word.toUpperCase(), count: request.body.count }));
  app.use((request, response) => response.status(404).type('text').send('not here'));
  const port = await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  t.after(() => app.uwsApp.close());

  const overHttp11 = await http11Answers(port);
  const overHttp2 = await http2Answers(t, port);
  assert.deepEqual(overHttp2, overHttp11);
  assert.deepEqual(overHttp2, EXPECTED_ANSWERS);
});
