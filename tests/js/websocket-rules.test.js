'use strict';
// Issue 18: what a WebSocket must never put on the wire, and what one hostile client must not be able to do to the
// server: close codes RFC 6455 keeps off the wire, fragments out of order, closeOnBackpressureLimit as
// uWebSockets.js behaves, and a client that floods pings without reading.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const { listen } = require('./helpers/server.js');
const { connectClient, nextMessage, closed, deferred, rawClient } = require('./helpers/websocket.js');

test('ws.end with a code that may not travel sends a close frame without one; a code that is none is a RangeError',
     async (t) => {
  const handlerCodes = [];
  const refusals = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    message: (ws, message) => {
      const code = Number(Buffer.from(message).toString());
      for (const invalid of [999, 1004, 1016, 2000, 2999, 5000, 70000, -1, 1.5]) {
        try { ws.end(invalid); } catch (error) { refusals.push(error.constructor.name); }
      }
      ws.end(code, 'bye');
    },
    close: (ws, code) => handlerCodes.push(code),
  }));
  const received = [];
  for (const code of [1006, 1005, 1015, 1012, 4000]) {
    const client = await connectClient(t, port);
    const done = closed(client);
    client.send(String(code));
    received.push((await done).code);
  }
  // The `ws` client reads a close frame without a code as 1005; it would fail the connection (1002) for 1006.
  assert.deepEqual(received, [1005, 1005, 1005, 1012, 4000]);
  assert.deepEqual(handlerCodes, [1006, 1005, 1015, 1012, 4000]);
  assert.equal(refusals.length, 5 * 9);
  assert.deepEqual([...new Set(refusals)], ['RangeError']);
});

test('fragments out of order throw and put nothing on the wire; a fragmented message in order arrives whole',
     async (t) => {
  const errors = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    message: (ws) => {
      for (const call of [() => ws.sendFragment('lone'), () => ws.sendLastFragment('lone')]) {
        try { call(); } catch (error) { errors.push(error.message); }
      }
      assert.equal(ws.sendFirstFragment('one ', false), 1);
      for (const call of [() => ws.send('inside'), () => ws.sendFirstFragment('again')]) {
        try { call(); } catch (error) { errors.push(error.message); }
      }
      assert.equal(ws.sendFragment('two '), 1);
      assert.equal(ws.sendLastFragment('three'), 1);
      ws.send('after');
    },
  }));
  const client = await connectClient(t, port);
  client.send('go');
  assert.equal((await nextMessage(client)).data.toString(), 'one two three');
  assert.equal((await nextMessage(client)).data.toString(), 'after');
  assert.equal(errors.length, 4);
  assert.match(errors[0], /^ws\.sendFragment: no fragmented message is being sent/);
  assert.match(errors[1], /^ws\.sendLastFragment: no fragmented message is being sent/);
  assert.match(errors[2], /^ws\.send: a fragmented message is being sent/);
  assert.match(errors[3], /^ws\.sendFirstFragment: a fragmented message is being sent/);
});

test('closeOnBackpressureLimit: after the drop, send goes on returning 2 in the handler; the close follows it',
     async (t) => {
  const statuses = [];
  const events = [];
  const closedOnServer = deferred();
  let socket;
  const { port } = listen(t, (app) => app.ws('/*', {
    maxBackpressure: 64 * 1024,
    closeOnBackpressureLimit: true,
    open: (ws) => { socket = ws; },
    dropped: () => events.push('dropped'),
    close: (ws, code) => { events.push(`close ${code}`); closedOnServer.resolve(); },
  }));
  const client = await rawClient(t, port);
  client.socket.pause();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < 200 && !statuses.includes(2); ++i) statuses.push(socket.send(chunk, true));
  // As uWebSockets.js does: frameworks loop over sends, and none of them may throw.
  statuses.push(socket.send('more'), socket.send('and more'));
  events.push('after sends');
  assert.deepEqual(statuses.slice(-3), [2, 2, 2]);
  await closedOnServer.promise;
  assert.deepEqual(events, ['dropped', 'dropped', 'dropped', 'after sends', 'close 1006']);
  assert.throws(() => socket.send('late'), /ws\.send: this WebSocket is closed/);
});

test('each WebSocket event is a task of its own: its nextTicks and microtasks run before the next event',
     async (t) => {
  // Two frames and a close frame that arrive in one read run three handlers; socket.io's server needs what the
  // first queued to have run before the second (a client's DISCONNECT then CONNECT, sent back to back).
  const order = [];
  const afterAwait = [];
  const done = deferred();
  const { port } = listen(t, (app) => app.ws('/*', {
    message: async (ws, message) => {
      const text = Buffer.from(message).toString();
      order.push(`message ${text}`);
      process.nextTick(() => order.push(`tick ${text}`));
      Promise.resolve().then(() => order.push(`microtask ${text}`));
      await null;
      // The message is lent for the event's whole task, as uWebSockets.js lends it.
      afterAwait.push(message.byteLength);
    },
    close: () => { order.push('close'); done.resolve(); },
  }));
  const client = await rawClient(t, port);
  const frame = (opcode, payload) => {
    const body = Buffer.from(payload);
    return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | body.length, 0, 0, 0, 0]), body]);
  };
  client.socket.write(Buffer.concat([frame(1, 'one'), frame(1, 'two'), frame(8, Buffer.from([0x03, 0xe8]))]));
  await done.promise;
  assert.deepEqual(order, ['message one', 'tick one', 'microtask one', 'message two', 'tick two', 'microtask two',
                           'close']);
  assert.deepEqual(afterAwait, [3, 3]);
});

// The flooding client runs in a process of its own (so that this process only serves): it sends pings as fast as it
// can and never reads a byte.
const FLOODER = `
  const net = require('node:net');
  const crypto = require('node:crypto');
  const socket = net.connect(Number(process.argv[1]), '127.0.0.1');
  socket.pause();
  socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
               'Sec-WebSocket-Key: ' + crypto.randomBytes(16).toString('base64') + '\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n');
  const ping = Buffer.concat([Buffer.from([0x89, 0x80 | 125, 1, 2, 3, 4]), Buffer.alloc(125, 7)]);
  const chunk = Buffer.concat(new Array(512).fill(ping));
  let sent = 0;
  const until = Date.now() + Number(process.argv[2]);
  (function flood() {
    while (Date.now() < until) {
      sent += chunk.length;
      if (!socket.write(chunk)) { socket.once('drain', flood); return; }
    }
    process.stdout.write(String(sent));
    process.exit(0);
  })();
  setTimeout(() => { process.stdout.write(String(sent)); process.exit(0); }, Number(process.argv[2]) + 500);
`;

test('a client that floods pings and never reads costs a bounded amount of memory; others are served meanwhile',
     async (t) => {
  const { port } = listen(t, (app) => app.ws('/*', {
    maxBackpressure: 64 * 1024,
    message: (ws, message, isBinary) => ws.send(message, isBinary),
  }));
  const before = process.memoryUsage().rss;
  const flooder = spawn(process.execPath, ['-e', FLOODER, String(port), '3000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => flooder.kill('SIGKILL'));
  let sent = '';
  flooder.stdout.on('data', (chunk) => { sent += chunk; });
  const exited = new Promise((resolve) => flooder.once('exit', resolve));
  const roundTrips = [];
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
  t.after(() => clearInterval(sampler));
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 4; ++i) {
    const started = Date.now();
    const other = await connectClient(t, port);
    other.send(`still served ${i}`);
    assert.equal((await nextMessage(other)).data.toString(), `still served ${i}`);
    roundTrips.push(Date.now() - started);
    other.close();
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  await exited;
  clearInterval(sampler);
  // Unbounded, the pongs waiting for the flooder grew this process by 1.7 GiB in 7 s.
  assert.ok(peak - before < 96 * 1024 * 1024, `RSS grew by ${((peak - before) / 1048576).toFixed(1)} MiB`);
  assert.ok(Math.max(...roundTrips) < 1000, `round trips ${roundTrips.join(', ')} ms`);
  assert.ok(Number(sent) > 0, 'the flooder sent pings');
});
