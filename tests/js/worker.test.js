'use strict';
// worker_threads: every worker has its own loop and Apps, and a worker that ends (terminate(), its loop
// running dry, process.exit) while its App has open connections cleans up without aborting the process.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { runNode } = require('./helpers/child.js');

test('workers each run their own App, and end cleanly in every way a worker ends', async () => {
  const result = await runNode([path.join(__dirname, 'fixtures', 'workers-main.js')], { timeoutMs: 30000 });
  assert.equal(result.signal, null, result.stderr);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), [
    'distinct workers: 3',
    'main: main',
    'exit codes: 1,0,0',
    'main still: main',
  ]);
});

test('the main thread ends cleanly with connections still open', async () => {
  const script = `
    const net = require('node:net');
    const uWS = require(${JSON.stringify(path.resolve(__dirname, '../../addon/lib/index.js'))});
    const app = uWS.App().get('/*', (res) => res.onAborted(() => {}));
    app.listen('127.0.0.1', 0, (token) => {
      const socket = net.connect(uWS.us_socket_local_port(token), '127.0.0.1', () => {
        socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
        setTimeout(() => process.exit(0), 50);
      });
    });
  `;
  const result = await runNode(['-e', script]);
  assert.equal(result.signal, null, result.stderr);
  assert.equal(result.code, 0, result.stderr);
});

test('a worker with open WebSockets ends cleanly when terminated, and the main thread with them at exit', async () => {
  const index = JSON.stringify(path.resolve(__dirname, '../../addon/lib/index.js'));
  const script = `
    const { Worker } = require('node:worker_threads');
    const WebSocket = require('ws');
    const workerSource = \`
      const { parentPort } = require('node:worker_threads');
      const uWS = require(${index.replace(/\\/g, '\\\\')});
      const app = uWS.App().ws('/*', {
        open: (ws) => ws.subscribe('all'),
        message: (ws, message) => { app.publish('all', message); },
        close: () => {},
      });
      app.listen('127.0.0.1', 0, (token) => parentPort.postMessage(uWS.us_socket_local_port(token)));
    \`;
    const worker = new Worker(workerSource, { eval: true });
    worker.once('message', (port) => {
      const clients = [1, 2, 3].map(() => new WebSocket('ws://127.0.0.1:' + port + '/'));
      let open = 0;
      for (const client of clients) {
        client.on('error', () => {});
        client.on('open', () => {
          if (++open === clients.length) clients[0].send('hello');
        });
      }
      clients[2].once('message', async () => {
        const code = await worker.terminate();
        console.log('terminated ' + code);
        const uWS = require(${index});
        const app = uWS.App().ws('/*', {});
        app.listen('127.0.0.1', 0, (token) => {
          const client = new WebSocket('ws://127.0.0.1:' + uWS.us_socket_local_port(token) + '/');
          client.on('open', () => setTimeout(() => process.exit(0), 20));
        });
      });
    });
  `;
  const result = await runNode(['-e', script], { cwd: path.resolve(__dirname, '../..') });
  assert.equal(result.signal, null, result.stderr);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'terminated 1');
});
