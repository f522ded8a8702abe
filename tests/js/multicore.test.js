'use strict';
// Several cores: worker_threads each with their own App on one port, either all listening on it (SO_REUSEPORT)
// or fed by an acceptor App on the main thread (getDescriptor, addChildAppDescriptor, removeChildAppDescriptor);
// adoptSocket; and workers that end, or are terminated, in the middle of a request.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const uWS = require('../../addon/lib/index.js');
const { raw, waitFor } = require('./helpers/server.js');

const workerScript = path.join(__dirname, 'fixtures', 'multicore-worker.js');

/** Starts a worker of fixtures/multicore-worker.js; resolves with { worker, name, descriptor } once it is ready. */
function startWorker(t, workerData) {
  const worker = new Worker(workerScript, { workerData });
  t.after(() => worker.terminate());
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message) => {
      if (!message.ready) reject(new Error(`worker ${workerData.name} could not start`));
      resolve({ worker, name: workerData.name, descriptor: message.descriptor });
    });
  });
}

/** One request on a connection of its own; resolves with the body. */
async function get(port, target = '/') {
  const answer = await raw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  return answer.slice(answer.indexOf('\r\n\r\n') + 4);
}

/** The bodies of n requests made one after the other, each on a connection of its own. */
async function bodies(port, n) {
  const result = [];
  for (let i = 0; i < n; i++) result.push(await get(port));
  return result;
}

/** Sends GET /hang and resolves with the open socket and a promise of its closing, once `worker` has it. */
async function hangingRequest(port, workers) {
  const socket = net.connect(port, '127.0.0.1');
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.on('error', () => {});
  const hanging = new Promise((resolve) => {
    for (const { worker } of workers) {
      worker.on('message', function onMessage(message) {
        if (message.hanging === undefined) return;
        worker.off('message', onMessage);
        resolve(message.hanging);
      });
    }
  });
  socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
  return { socket, closed, by: await hanging };
}

/** Sockets and eventfds this process has open: what an App that leaked a connection or its inbox would leave. */
function openSocketsAndEventfds() {
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith('socket:') || target === 'anon_inode:[eventfd]') count++;
    } catch {
      // the descriptor readdir itself used, closed since
    }
  }
  return count;
}

/** An acceptor App on 127.0.0.1 port 0 that answers "main" when it serves a request itself. */
function acceptor(t) {
  const app = uWS.App().get('/*', (res) => res.end('main'));
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token);
  t.after(() => app.close());
  return { app, port: uWS.us_socket_local_port(token) };
}

test('four workers listening on one port (SO_REUSEPORT) each serve some of the requests', async (t) => {
  // The main thread takes a free port and holds it until the workers listen on it too.
  let token = false;
  const main = uWS.App().listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  t.after(() => main.close());
  const port = uWS.us_socket_local_port(token);
  const workers = await Promise.all(['w0', 'w1', 'w2', 'w3'].map((name) => startWorker(t, { name, port })));
  uWS.us_listen_socket_close(token);
  const served = new Map();
  for (const body of await bodies(port, 64)) served.set(body, (served.get(body) ?? 0) + 1);
  // Each worker is left out with a chance of (3/4)^64.
  assert.deepEqual([...served.keys()].sort(), ['w0', 'w1', 'w2', 'w3']);
  await Promise.all(workers.map(({ worker }) => worker.terminate()));
});

test('an acceptor App deals its connections to four worker Apps in turn', async (t) => {
  const { app, port } = acceptor(t);
  const workers = await Promise.all(['w0', 'w1', 'w2', 'w3'].map((name) => startWorker(t, { name })));
  for (const { descriptor } of workers) {
    assert.equal(typeof descriptor, 'number');
    assert.equal(app.addChildAppDescriptor(descriptor), app);
  }
  assert.deepEqual(await bodies(port, 8), ['w0', 'w1', 'w2', 'w3', 'w0', 'w1', 'w2', 'w3']);
  // Removed children get no more; with none left, the acceptor serves by itself.
  assert.equal(app.removeChildAppDescriptor(workers[0].descriptor), app);
  assert.equal(app.removeChildAppDescriptor(workers[2].descriptor), app);
  assert.deepEqual(await bodies(port, 4), ['w1', 'w3', 'w1', 'w3']);
  app.removeChildAppDescriptor(workers[1].descriptor).removeChildAppDescriptor(workers[3].descriptor);
  assert.deepEqual(await bodies(port, 2), ['main', 'main']);
  await Promise.all(workers.map(({ worker }) => worker.terminate()));
});

test('a worker terminated mid-request: its client sees the connection close, the others keep serving, nothing leaks',
  async (t) => {
    const before = openSocketsAndEventfds();
    const { app, port } = acceptor(t);
    const workers = await Promise.all(['w0', 'w1'].map((name) => startWorker(t, { name })));
    for (const { descriptor } of workers) app.addChildAppDescriptor(descriptor);
    const hanging = await hangingRequest(port, workers);
    assert.equal(hanging.by, 'w0');
    assert.equal(await workers[0].worker.terminate(), 1);
    await hanging.closed;
    // The acceptor drops the child that ended and gives every connection to the one left.
    assert.deepEqual(await bodies(port, 4), ['w1', 'w1', 'w1', 'w1']);
    // Removing or adding an ended child is harmless (a worker may end before its descriptor is read).
    app.removeChildAppDescriptor(workers[0].descriptor).addChildAppDescriptor(workers[0].descriptor);
    assert.deepEqual(await bodies(port, 2), ['w1', 'w1']);
    await workers[1].worker.terminate();
    assert.deepEqual(await bodies(port, 2), ['main', 'main']);
    app.close();
    // The clients' own sockets close a loop turn after the server's.
    await waitFor(() => openSocketsAndEventfds() === before, `${before} sockets and eventfds open`);
  });

test('a worker sharing the port, terminated mid-request, leaves the other serving', async (t) => {
  let token = false;
  const main = uWS.App().listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  t.after(() => main.close());
  const port = uWS.us_socket_local_port(token);
  const workers = await Promise.all(['w0', 'w1'].map((name) => startWorker(t, { name, port })));
  uWS.us_listen_socket_close(token);
  const hanging = await hangingRequest(port, workers);
  const victim = workers.find(({ name }) => name === hanging.by);
  const survivor = workers.find(({ name }) => name !== hanging.by);
  await victim.worker.terminate();
  await hanging.closed;
  assert.deepEqual(new Set(await bodies(port, 16)), new Set([survivor.name]));
  await survivor.worker.terminate();
});

test('a child App that closes lets its worker end by itself, and is skipped from then on', async (t) => {
  const { app, port } = acceptor(t);
  const [child] = await Promise.all([startWorker(t, { name: 'w0' })]);
  app.addChildAppDescriptor(child.descriptor);
  assert.deepEqual(await bodies(port, 1), ['w0']);
  const exited = new Promise((resolve) => child.worker.once('exit', resolve));
  child.worker.postMessage('close');
  assert.equal(await exited, 0);
  assert.deepEqual(await bodies(port, 2), ['main', 'main']);
});

test('getDescriptor returns the same number every time; bad descriptors and fds throw, naming the argument', (t) => {
  const app = uWS.App();
  const child = uWS.App();
  t.after(() => { app.close(); child.close(); });
  const descriptor = child.getDescriptor();
  assert.ok(Number.isInteger(descriptor) && descriptor > 0);
  assert.equal(child.getDescriptor(), descriptor);
  assert.notEqual(app.getDescriptor(), descriptor);
  for (const method of ['addChildAppDescriptor', 'removeChildAppDescriptor']) {
    for (const bad of ['x', undefined, null, {}, 1n]) {
      assert.throws(() => app[method](bad), { name: 'TypeError', message: new RegExp(`app\\.${method}: descriptor`) });
    }
    for (const bad of [-1, 1.5, Infinity, 2 ** 53]) {
      assert.throws(() => app[method](bad), { name: 'RangeError', message: new RegExp(`app\\.${method}: descriptor`) });
    }
    // Numbers getDescriptor() never returned: 0, and one far past the last.
    for (const unknown of [0, descriptor + 1000000]) {
      assert.throws(() => app[method](unknown), { name: 'RangeError', message: /not a number that app\.getDescriptor\(\) returned/ });
    }
  }
  // A numeric string is read as uWebSockets.js reads it.
  assert.equal(app.addChildAppDescriptor(String(descriptor)), app);
  assert.equal(app.removeChildAppDescriptor(String(descriptor)), app);

  for (const bad of ['x', undefined, null, {}]) {
    assert.throws(() => app.adoptSocket(bad), { name: 'TypeError', message: /app\.adoptSocket: fd/ });
  }
  for (const bad of [-1, 1.5, 2 ** 31]) {
    assert.throws(() => app.adoptSocket(bad), { name: 'RangeError', message: /app\.adoptSocket: fd/ });
  }
  assert.throws(() => app.adoptSocket(3, {}), { name: 'TypeError', message: /app\.adoptSocket: ip/ });
  // A descriptor that is not a connected stream socket is refused and left open.
  const file = fs.openSync(__filename, 'r');
  try {
    assert.throws(() => app.adoptSocket(file), { name: 'RangeError', message: /is not an open, connected stream socket/ });
    assert.ok(fs.fstatSync(file).isFile());
  } finally {
    fs.closeSync(file);
  }
});

test('adoptSocket serves a connected socket handed over by another process', async (t) => {
  // The parent accepts the connection and passes it to a child process as its fd 3, which adopts it.
  const script = `
    const uWS = require(${JSON.stringify(path.resolve(__dirname, '../../addon/lib/index.js'))});
    uWS.App().get('/*', (res, req) => res.end('adopted: ' + req.getUrl())).adoptSocket(3, '127.0.0.1');
  `;
  const server = net.createServer({ pauseOnConnect: true });
  t.after(() => server.close());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const exited = new Promise((resolve, reject) => {
    server.once('connection', (socket) => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', socket] });
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve({ code, signal }));
      socket.destroy();
    });
  });
  const answer = await raw(server.address().port, 'GET /handed-over HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(answer, /\r\n\r\nadopted: \/handed-over$/);
  // Once the adopted connection has closed, the child's loop has nothing left and it exits.
  assert.deepEqual(await exited, { code: 0, signal: null });
});
