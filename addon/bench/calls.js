'use strict';
// npm run bench:calls: what the binding costs, in nanoseconds per call, measured in-process.
//
// A loopwire App and a client run in this process; the client pipelines requests (BATCH per write) on one
// keep-alive connection. For each call, its handler times that one call with performance.now(), and an empty
// timing just before it; a run's figure is the median call time minus the median empty time (medians, so that a
// garbage collection or a preemption in a few samples does not move it). Registrations (onAborted, onData,
// onWritable) are the first on their response, as in a real handler. "whole request" is wall time per request
// served, client included. Each measurement runs ROUNDS times, alternating within each round; the table shows
// the minimum over the rounds (the least disturbed run).

const net = require('node:net');
const { performance } = require('node:perf_hooks');
const uWS = require('../lib/index.js');

const ROUNDS = 7;
const REQUESTS = Number(process.env.REQUESTS ?? 20000);
const BATCH = 32;
const REQUEST = 'GET /x HTTP/1.1\r\nHost: bench\r\nUser-Agent: loopwire-bench\r\nAccept: */*\r\n\r\n';

const noop = () => {};
// A body past the binding's inline string storage (512 bytes), like a cached page.
const PAGE = 'a cached page line of 32 bytes.\n'.repeat(32);
const writable = () => true;
// Per request of the measured part: the empty timing and the timed call, in milliseconds.
const emptyTimes = new Float64Array(REQUESTS);
const callTimes = new Float64Array(REQUESTS);
let timed = 0;

function record(t0, t1, t2) {
  if (timed < REQUESTS) {
    emptyTimes[timed] = t1 - t0;
    callTimes[timed] = t2 - t1;
  }
  timed++;
}

function median(values, count) {
  const sorted = values.slice(0, count).sort();
  return sorted[Math.floor(count / 2)];
}

// One handler per measured call: [name, handler, route pattern (default /*)].
const measures = [
  ['res.onAborted', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.onAborted(noop);
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['res.onData', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.onData(noop);
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['res.onWritable', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.onWritable(writable);
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['res.writeHeader', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.writeHeader('x-bench', 'value');
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['req.getHeader', (res, req) => {
    const t0 = performance.now();
    const t1 = performance.now();
    req.getHeader('user-agent');
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['req.getUrl', (res, req) => {
    const t0 = performance.now();
    const t1 = performance.now();
    req.getUrl();
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['req.getMethod', (res, req) => {
    const t0 = performance.now();
    const t1 = performance.now();
    req.getMethod();
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  ['req.getQuery', (res, req) => {
    const t0 = performance.now();
    const t1 = performance.now();
    req.getQuery();
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }],
  // On the route /:name (the others are on /*).
  ['req.getParameter', (res, req) => {
    const t0 = performance.now();
    const t1 = performance.now();
    req.getParameter(0);
    const t2 = performance.now();
    record(t0, t1, t2);
    res.end('ok');
  }, '/:name'],
  ['res.end (short string)', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.end('ok');
    const t2 = performance.now();
    record(t0, t1, t2);
  }],
  ['res.end (1 KiB string)', (res) => {
    const t0 = performance.now();
    const t1 = performance.now();
    res.end(PAGE);
    const t2 = performance.now();
    record(t0, t1, t2);
  }],
  ['whole request (hello world)', (res) => {
    res.end('ok');
  }],
];

function startServer(handler, pattern = '/*') {
  const app = uWS.App().get(pattern, handler);
  let token;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  return { app, port: uWS.us_socket_local_port(token) };
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.setNoDelay(true);
    socket.on('error', reject);
  });
}

// Sends `count` requests in pipelined batches and resolves once every response has arrived.
function drive(socket, count, responseBytes) {
  return new Promise((resolve) => {
    const batch = REQUEST.repeat(BATCH);
    let sent = 0;
    let expected = 0;
    let received = 0;
    const sendBatch = () => {
      const n = Math.min(BATCH, count - sent);
      sent += n;
      expected += n * responseBytes;
      socket.write(n === BATCH ? batch : REQUEST.repeat(n));
    };
    const onData = (chunk) => {
      received += chunk.length;
      if (received < expected) return;
      if (sent < count) {
        sendBatch();
      } else {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
    sendBatch();
  });
}

async function responseLength(port) {
  const socket = await connect(port);
  const bytes = await new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      const headEnd = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text);
      if (headEnd >= 0 && length !== null && text.length >= headEnd + 4 + Number(length[1])) resolve(text.length);
    });
    socket.write(REQUEST);
  });
  socket.destroy();
  return bytes;
}

async function runOnce(handler, pattern, isWhole) {
  const { app, port } = startServer(handler, pattern);
  const bytes = await responseLength(port);
  const socket = await connect(port);
  await drive(socket, 2000, bytes);
  timed = 0;
  const started = process.hrtime.bigint();
  await drive(socket, REQUESTS, bytes);
  const elapsed = Number(process.hrtime.bigint() - started);
  socket.destroy();
  app.close();
  if (isWhole) return elapsed / REQUESTS;
  const count = Math.min(timed, REQUESTS);
  return (median(callTimes, count) - median(emptyTimes, count)) * 1e6;
}

async function main() {
  const best = new Map(measures.map(([name]) => [name, Infinity]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order from round to round so that no measurement always runs first or last.
    const order = round % 2 === 0 ? measures : [...measures].reverse();
    for (const [name, handler, pattern] of order) {
      const ns = await runOnce(handler, pattern, name.startsWith('whole'));
      best.set(name, Math.min(best.get(name), ns));
    }
  }
  console.log(`loopwire bench:calls — Node ${process.version}, ${REQUESTS} requests per run, ` +
              `minimum of ${ROUNDS} alternating runs`);
  console.log('');
  console.log('| call | ns per call |');
  console.log('|---|---:|');
  for (const [name, ns] of best) console.log(`| ${name} | ${ns.toFixed(0)} |`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
