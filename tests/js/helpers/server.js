'use strict';
// Test helpers: an App listening on a free port, closed when the test ends, and small real clients.

const net = require('node:net');
const v8 = require('node:v8');
const vm = require('node:vm');

/**
 * Creates an App (from `api`, default require('loopwire')), lets `setup(app)` add routes, listens on port 0 on
 * 127.0.0.1 and registers app.close() with t.after. Returns { app, port, token, url(path) }.
 */
function listen(t, setup, api = require('../../../addon/lib/index.js')) {
  const app = api.App();
  setup(app);
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  if (!token) throw new Error('listen failed');
  const port = api.us_socket_local_port(token);
  t.after(() => app.close());
  return { app, port, token, url: (path = '/') => `http://127.0.0.1:${port}${path}` };
}

/**
 * Sends raw bytes to 127.0.0.1:port and resolves with everything the server sends until it closes the
 * connection (or until `until(text)` is true, then closes it), with a deadline.
 */
function raw(port, bytes, { until, timeoutMs = 5000, keepOpen = false } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw: no complete answer within ${timeoutMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (until && until(Buffer.concat(chunks).toString('latin1'))) {
        if (!keepOpen) socket.destroy();
        finish();
      }
    });
    socket.on('end', finish);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(bytes);
  });
}

/** Opens a connection and resolves once connected; for tests that abort requests by destroying it. */
function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves once predicate() is true, polling each loop turn; rejects after timeoutMs. */
async function waitFor(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let gcFunction;
/** A function that runs a full garbage collection (without starting node with --expose-gc). */
function gc() {
  if (!gcFunction) {
    v8.setFlagsFromString('--expose-gc');
    gcFunction = vm.runInNewContext('gc');
  }
  gcFunction();
}

module.exports = { listen, raw, connect, waitFor, gc };
