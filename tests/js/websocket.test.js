'use strict';
// app.ws, res.upgrade, the WebSocket object and pub/sub, driven by the `ws` npm client (what Node users connect
// with) and, for what a polite client never sends, by raw frames.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const WebSocket = require('ws');
const uWS = require('../../addon/lib/index.js');
const { listen, waitFor } = require('./helpers/server.js');
const { connectClient, nextMessage, closed, deferred, rawClient } = require('./helpers/websocket.js');

test('echo: text comes back as text, binary as binary; open and close run once, in order', async (t) => {
  const events = [];
  const closedOnServer = deferred();
  const { port } = listen(t, (app) => app.ws('/*', {
    maxPayloadLength: 1024 * 1024,
    open: (ws) => events.push('open'),
    message: (ws, message, isBinary) => {
      assert.ok(message instanceof ArrayBuffer);
      events.push(`message ${isBinary}`);
      ws.send(message, isBinary);
    },
    close: (ws, code, message) => {
      events.push(`close ${code} ${Buffer.from(message).toString()}`);
      closedOnServer.resolve();
    },
  }));
  const client = await connectClient(t, port);
  client.send('héllo');
  let reply = await nextMessage(client);
  assert.equal(reply.isBinary, false);
  assert.equal(reply.data.toString(), 'héllo');
  const binary = crypto.randomBytes(100 * 1024);
  client.send(binary);
  reply = await nextMessage(client);
  assert.equal(reply.isBinary, true);
  assert.ok(binary.equals(reply.data));
  const done = closed(client);
  client.close(4000, 'done');
  assert.deepEqual(await done, { code: 4000, reason: 'done' });
  await closedOnServer.promise;
  assert.deepEqual(events, ['open', 'message false', 'message true', 'close 4000 done']);
});


test('send reads isBinary and compress as JavaScript truthiness, as uWebSockets.js does', async (t) => {
  const flags = [true, 1, 'yes', {}, false, 0, '', null, undefined];
  const { port } = listen(t, (app) => app.ws('/*', {
    compression: uWS.SHARED_COMPRESSOR,
    message: (ws, message) => {
      const index = Number(Buffer.from(message).toString());
      ws.send(`reply ${index}`, flags[index], flags[index]);
    },
  }));
  const client = await connectClient(t, port);
  for (let index = 0; index < flags.length; ++index) {
    client.send(String(index));
    const reply = await nextMessage(client);
    assert.equal(reply.data.toString(), `reply ${index}`);
    assert.equal(reply.isBinary, Boolean(flags[index]), String(flags[index]));
  }
});
test('the message buffer is detached after the handler, and the ws throws after close', async (t) => {
  let kept;
  let keptWs;
  const afterClose = deferred();
  const { port } = listen(t, (app) => app.ws('/*', {
    message: (ws, message) => { kept = message; keptWs = ws; ws.send('ok'); },
    close: (ws) => {
      assert.throws(() => ws.send('x'), /closed/);
      afterClose.resolve();
    },
  }));
  const client = await connectClient(t, port);
  client.send('12345');
  await nextMessage(client);
  assert.equal(kept.byteLength, 0);
  client.close();
  await afterClose.promise;
  assert.throws(() => keptWs.send('late'), { name: 'Error', message: /ws\.send: this WebSocket is closed/ });
  assert.throws(() => keptWs.subscribe('t'), /closed/);
  assert.equal(keptWs.getUserData(), keptWs);
});

test('upgrade: user data is copied onto the ws, synchronously and after an await', async (t) => {
  const opened = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    upgrade: (res, req, context) => {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const url = req.getUrl();
      if (url === '/async') {
        res.onAborted(() => {});
        setTimeout(() => res.upgrade({ url, late: true }, key, protocol, extensions, context), 10);
      } else {
        res.upgrade({ url, answer: 42 }, key, protocol, extensions, context);
        assert.throws(() => res.end('x'), /can no longer be used/);
      }
    },
    open: (ws) => { opened.push({ ...ws.getUserData() }); ws.send(JSON.stringify(ws.getUserData())); },
  }));
  const sync = await connectClient(t, port, { protocols: ['chat', 'superchat'] }, '/sync');
  assert.equal(sync.protocol, 'chat');
  assert.deepEqual(JSON.parse((await nextMessage(sync)).data), { url: '/sync', answer: 42 });
  const later = await connectClient(t, port, {}, '/async');
  assert.deepEqual(JSON.parse((await nextMessage(later)).data), { url: '/async', late: true });
  assert.equal(opened.length, 2);
});

test('upgrade after an already-resolved await, and after writeStatus(101) and headers (issue 18)', async (t) => {
  const refusals = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    upgrade: async (res, req, context) => {
      const url = req.getUrl();
      const args = () => [req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'),
                          req.getHeader('sec-websocket-extensions'), context];
      if (url === '/await') {
        // No onAborted: the code after the await is still the handler's, as in uWebSockets.js.
        await null;
        res.upgrade({ url }, ...args());
      } else if (url === '/status') {
        // engine.io's way: the status first, then the fields its 'headers' listeners added.
        res.writeStatus('101 Switching Protocols').writeHeader('Set-Cookie', 'io=abc; Path=/');
        res.upgrade({ url }, ...args());
      } else if (url === '/cork') {
        await Promise.resolve();
        res.cork(() => {
          res.writeStatus('101 Switching Protocols');
          res.writeHeader('x-upgraded-by', 'cork');
          res.upgrade({ url }, ...args());
        });
      } else {
        res.writeHeader('x-too', 'late');
        try { res.upgrade({ url }, ...args()); } catch (error) { refusals.push(error); }
        res.end('refused');
      }
    },
    open: (ws) => ws.send(ws.getUserData().url),
  }));
  const headersOf = (client) => new Promise((resolve) => client.once('upgrade', (response) => resolve(response.headers)));
  for (const urlPath of ['/await', '/status', '/cork']) {
    const client = new WebSocket(`ws://127.0.0.1:${port}${urlPath}`);
    t.after(() => client.terminate());
    const headers = headersOf(client);
    const message = new Promise((resolve, reject) => {
      client.once('message', (data) => resolve(data.toString()));
      client.once('error', reject);
    });
    assert.equal(await message, urlPath);
    const got = await headers;
    assert.equal(got.upgrade, 'websocket');
    if (urlPath === '/status') assert.equal(got['set-cookie'][0], 'io=abc; Path=/');
    if (urlPath === '/cork') assert.equal(got['x-upgraded-by'], 'cork');
  }
  const late = new WebSocket(`ws://127.0.0.1:${port}/late`);
  t.after(() => late.terminate());
  late.on('error', () => {});
  const status = await new Promise((resolve) => late.once('unexpected-response', (req, res) => resolve(res.statusCode)));
  assert.equal(status, 200);
  assert.equal(refusals.length, 1);
  assert.equal(refusals[0].constructor, Error);
  assert.match(refusals[0].message, /res\.upgrade: this response can no longer switch protocols/);
});

test('res.upgrade refuses a context that is not one, and a missing key', async (t) => {
  const errors = deferred();
  const { port } = listen(t, (app) => app.ws('/*', {
    upgrade: (res, req, context) => {
      const found = [];
      try { res.upgrade({}, req.getHeader('sec-websocket-key'), '', '', {}); } catch (error) { found.push(error); }
      try { res.upgrade({}, 42, '', '', context); } catch (error) { found.push(error); }
      errors.resolve(found);
      res.writeStatus('403 Forbidden').end('no');
    },
  }));
  const client = new WebSocket(`ws://127.0.0.1:${port}/`);
  t.after(() => client.terminate());
  const refused = new Promise((resolve) => client.once('unexpected-response', (req, res) => resolve(res.statusCode)));
  client.on('error', () => {});
  const found = await errors.promise;
  assert.equal(found.length, 2);
  assert.ok(found.every((error) => error instanceof TypeError));
  assert.match(found[0].message, /context/);
  assert.match(found[1].message, /secWebSocketKey/);
  assert.equal(await refused, 403);
});

test('app.ws checks its behaviour: RangeError for idleTimeout, maxLifetime, compression; TypeError for handlers', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.ws('/a', { idleTimeout: 4 }), { name: 'RangeError', message: /idleTimeout/ });
  assert.throws(() => app.ws('/a', { idleTimeout: 961 }), RangeError);
  assert.throws(() => app.ws('/a', { maxLifetime: 241 }), { name: 'RangeError', message: /maxLifetime/ });
  assert.throws(() => app.ws('/a', { compression: 0x1000 }), { name: 'RangeError', message: /compression/ });
  assert.throws(() => app.ws('/a', { message: 'nope' }), { name: 'TypeError', message: /behavior\.message/ });
  assert.throws(() => app.ws('/a', { maxPayloadLength: -1 }), RangeError);
  assert.throws(() => app.ws('/a', { maxBackpressure: 1.5 }), RangeError);
  assert.throws(() => app.ws('/a', { maxPayloadLength: 'lots' }), TypeError);
  // Issue 18: uWebSockets.js accepts a limit past 32 bits (frameworks pass 1e10 for "no limit"); so does loopwire.
  assert.equal(app.ws('/big', { maxPayloadLength: 1e10, maxBackpressure: Infinity }), app);
  assert.throws(() => app.ws('/a'), TypeError);
  assert.equal(app.ws('/b', { idleTimeout: 0, compression: uWS.SHARED_COMPRESSOR, maxLifetime: 240 }), app);
  assert.equal(app.ws('/c', { idleTimeout: 8, compression: uWS.DEDICATED_COMPRESSOR_4KB | uWS.DEDICATED_DECOMPRESSOR_1KB }), app);
});

test('a plain GET on a ws route goes to the next route; a broken handshake gets 400 or 426', async (t) => {
  const { port, url } = listen(t, (app) => {
    app.ws('/*', {});
    app.get('/*', (res) => res.end('plain'));
  });
  assert.equal(await (await fetch(url('/x'))).text(), 'plain');
  const client = await connectClient(t, port);
  assert.equal(client.readyState, WebSocket.OPEN);
  const ask = (headers) => new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${headers}\r\n`));
    let text = '';
    socket.on('data', (chunk) => { text += chunk; if (text.includes('\r\n\r\n')) { socket.destroy(); resolve(text); } });
    socket.on('error', reject);
  });
  const badKey = await ask('Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n');
  assert.match(badKey, /^HTTP\/1\.1 400 /);
  const oldVersion = await ask('Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n');
  assert.match(oldVersion, /^HTTP\/1\.1 426 /);
  assert.match(oldVersion, /Sec-WebSocket-Version: 13/i);
});

test('pub/sub: ws.publish skips the sender, app.publish reaches all, subscription events and counts', async (t) => {
  const subscriptions = [];
  let server;
  const { port, app } = listen(t, (created) => {
    server = created;
    created.ws('/*', {
      open: (ws) => {
        assert.equal(ws.subscribe('room'), true);
        assert.equal(ws.isSubscribed('room'), true);
        assert.deepEqual(ws.getTopics(), ['room']);
        ws.send('subscribed');
      },
      message: (ws, message) => {
        assert.equal(ws.publish('room', message, false), true);
        // A direct send after a publish arrives after it at every subscriber (here: at none but the sender).
        ws.send('sent');
      },
      subscription: (ws, topic, newCount, oldCount) => {
        subscriptions.push([Buffer.from(topic).toString(), newCount, oldCount]);
      },
    });
  });
  const alice = await connectClient(t, port);
  assert.equal((await nextMessage(alice)).data.toString(), 'subscribed');
  const bob = await connectClient(t, port);
  assert.equal((await nextMessage(bob)).data.toString(), 'subscribed');
  assert.equal(app.numSubscribers('room'), 2);
  assert.equal(app.numSubscribers('nobody'), 0);
  const bobGets = nextMessage(bob);
  const aliceGets = nextMessage(alice);
  alice.send('hi from alice');
  assert.equal((await bobGets).data.toString(), 'hi from alice');
  assert.equal((await aliceGets).data.toString(), 'sent');
  const both = [nextMessage(alice), nextMessage(bob)];
  assert.equal(server.publish('room', 'to everyone'), true);
  assert.equal(server.publish('empty room', 'nobody'), false);
  for (const message of await Promise.all(both)) assert.equal(message.data.toString(), 'to everyone');
  const bobClosed = closed(bob);
  bob.close();
  await bobClosed;
  while (app.numSubscribers('room') !== 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(subscriptions, [['room', 1, 0], ['room', 2, 1], ['room', 1, 2]]);
});

test('ws.end(code, message) sends a close frame and runs close at once; ws.close() gives 1006', async (t) => {
  const codes = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    message: (ws, message) => {
      const text = Buffer.from(message).toString();
      if (text === 'end') {
        ws.end(4321, 'see you');
        codes.push('after end');
      } else {
        ws.close();
      }
    },
    close: (ws, code, message) => codes.push(`${code} ${Buffer.from(message).toString()}`),
  }));
  const first = await connectClient(t, port);
  const firstClosed = closed(first);
  first.send('end');
  assert.deepEqual(await firstClosed, { code: 4321, reason: 'see you' });
  const second = await connectClient(t, port);
  const secondClosed = closed(second);
  second.send('close');
  assert.equal((await secondClosed).code, 1006);
  assert.deepEqual(codes, ['4321 see you', 'after end', '1006 ']);
});

test('a message over maxPayloadLength closes with 1009', async (t) => {
  const { port } = listen(t, (app) => app.ws('/*', { maxPayloadLength: 1024, message: (ws, m) => ws.send(m) }));
  const client = await connectClient(t, port);
  const done = closed(client);
  client.send(Buffer.alloc(1025));
  assert.equal((await done).code, 1009);
});

test('permessage-deflate: compressed messages both ways with the ws client, shared and dedicated', async (t) => {
  for (const compression of [uWS.SHARED_COMPRESSOR | uWS.SHARED_DECOMPRESSOR,
    uWS.DEDICATED_COMPRESSOR_8KB | uWS.DEDICATED_DECOMPRESSOR]) {
    const { port } = listen(t, (app) => app.ws('/*', {
      compression,
      message: (ws, message, isBinary) => ws.send(message, isBinary, true),
    }));
    const client = await connectClient(t, port, { perMessageDeflate: { threshold: 0 } });
    assert.match(client.extensions, /permessage-deflate/);
    for (let i = 0; i < 3; ++i) {
      const text = `${'repeated text '.repeat(200)} ${i}`;
      client.send(text);
      assert.equal((await nextMessage(client)).data.toString(), text);
    }
  }
});

test('raw frames: automatic pong, fragmented message with a ping inside, protocol errors closed with their codes', async (t) => {
  const pings = [];
  const { port } = listen(t, (app) => app.ws('/*', {
    maxPayloadLength: 4096,
    message: (ws, message, isBinary) => ws.send(message, isBinary),
    ping: (ws, message) => pings.push(Buffer.from(message).toString()),
  }));
  const client = await rawClient(t, port);
  client.frame(0x89, 'are you there');
  let frame = await client.readFrame();
  assert.equal(frame.opcode, 0xA);
  assert.equal(frame.payload.toString(), 'are you there');
  client.frame(0x01, 'frag');
  client.frame(0x89, 'p');
  client.frame(0x80, 'mented');
  frame = await client.readFrame();
  assert.equal(frame.opcode, 0xA);
  frame = await client.readFrame();
  assert.deepEqual([frame.opcode, frame.fin, frame.payload.toString()], [0x1, true, 'fragmented']);
  assert.deepEqual(pings, ['are you there', 'p']);

  const cases = [
    ['unmasked frame', (c) => c.frame(0x82, 'x', { mask: false }), 1002],
    ['RSV2', (c) => c.frame(0xA2, 'x'), 1002],
    ['RSV1 without compression', (c) => c.frame(0xC2, 'x'), 1002],
    ['reserved opcode', (c) => c.frame(0x83, 'x'), 1002],
    ['long control frame', (c) => c.frame(0x89, Buffer.alloc(126)), 1002],
    ['fragmented control frame', (c) => c.frame(0x09, 'x'), 1002],
    ['continuation first', (c) => c.frame(0x80, 'x'), 1002],
    ['invalid UTF-8 across fragments', (c) => { c.frame(0x01, Buffer.from([0xce])); c.frame(0x00, Buffer.from([0x41])); }, 1007],
    ['close code 1005', (c) => c.frame(0x88, Buffer.from([0x03, 0xed])), 1002],
    ['close reason not UTF-8', (c) => c.frame(0x88, Buffer.from([0x03, 0xe8, 0xff])), 1007],
    ['message over maxPayloadLength', (c) => c.frame(0x82, Buffer.alloc(4097)), 1009],
  ];
  for (const [name, send, code] of cases) {
    const raw = await rawClient(t, port);
    send(raw);
    const close = await raw.readFrame();
    assert.equal(close.opcode, 0x8, name);
    assert.equal(close.payload.readUInt16BE(0), code, name);
    await raw.waitClosed();
  }
});

test('backpressure: send reports it, dropped runs over maxBackpressure, drain after the peer reads', async (t) => {
  const statuses = new Set();
  const dropped = deferred();
  const drained = deferred();
  let socket;
  const { port } = listen(t, (app) => app.ws('/*', {
    maxBackpressure: 256 * 1024,
    open: (ws) => { socket = ws; },
    dropped: (ws, message, isBinary) => dropped.resolve([message.byteLength, isBinary]),
    drain: () => drained.resolve(),
  }));
  const client = await rawClient(t, port);
  client.socket.pause();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < 200 && !statuses.has(2); ++i) statuses.add(socket.send(chunk, true));
  assert.ok(statuses.has(0), 'backpressure was reported');
  assert.ok(statuses.has(2), 'a message was dropped');
  assert.deepEqual(await dropped.promise, [64 * 1024, true]);
  assert.ok(socket.getBufferedAmount() > 256 * 1024);
  client.socket.resume();
  await drained.promise;
});

test('dropped runs once for every published message maxBackpressure refuses, not once a batch (issue 47)', async (t) => {
  const total = 2000;
  let dropped = 0;
  const opened = deferred();
  const { app, port } = listen(t, (server) => server.ws('/*', {
    maxBackpressure: 1024 * 1024,
    open: (ws) => { ws.subscribe('t'); opened.resolve(); },
    dropped: (ws, message) => { assert.equal(message.byteLength, 32 * 1024); dropped += 1; },
  }));
  const client = await connectClient(t, port);
  await opened.promise;
  client.pause();
  let received = 0;
  client.on('message', () => { received += 1; });
  const message = crypto.randomBytes(32 * 1024);
  // Two publishes a loop turn: each turn's pair is one batch for the subscriber.
  for (let published = 0; published < total; published += 2) {
    app.publish('t', message, true);
    app.publish('t', message, true);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(dropped > total / 2, `most were dropped (${dropped})`);
  client.resume();
  await waitFor(() => received + dropped >= total, `${total - dropped} messages (got ${received})`, 10000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(received + dropped, total);
});

test('examples/js/echo_server.js echoes with --compression shared, dedicated and off', async (t) => {
  for (const compression of ['shared', 'dedicated', 'off']) {
    const child = spawn(process.execPath,
      [path.resolve(__dirname, '..', '..', 'examples', 'js', 'echo_server.js'), '--port', '0', '--compression', compression]);
    t.after(() => child.kill('SIGKILL'));
    const port = await new Promise((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const match = /listening on (\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      child.on('exit', (code) => reject(new Error(`echo_server exited with ${code}: ${output}`)));
    });
    const client = await connectClient(t, port, { perMessageDeflate: compression !== 'off' });
    assert.equal(/permessage-deflate/.test(client.extensions), compression !== 'off');
    const big = crypto.randomBytes(2 * 1024 * 1024);
    client.send(big);
    assert.ok(big.equals((await nextMessage(client)).data));
    client.send('text');
    const reply = await nextMessage(client);
    assert.deepEqual([reply.data.toString(), reply.isBinary], ['text', false]);
    child.kill('SIGKILL');
  }
});

test('res.upgrade with the context of another App is answered 500, not followed', async (t) => {
  let otherContext;
  const other = listen(t, (app) => app.ws('/*', { upgrade: (res, req, context) => { otherContext = context; res.end(); } }));
  const probe = new WebSocket(`ws://127.0.0.1:${other.port}/`);
  probe.on('error', () => {});
  await new Promise((resolve) => probe.once('unexpected-response', resolve));
  probe.terminate();
  assert.ok(otherContext);
  const { port } = listen(t, (app) => app.ws('/*', {
    upgrade: (res, req) => res.upgrade({}, req.getHeader('sec-websocket-key'), '', '', otherContext),
  }));
  const client = new WebSocket(`ws://127.0.0.1:${port}/`);
  t.after(() => client.terminate());
  client.on('error', () => {});
  const status = await new Promise((resolve) => client.once('unexpected-response', (req, res) => resolve(res.statusCode)));
  assert.equal(status, 500);
});
