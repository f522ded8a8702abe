'use strict';
// The per-request cost rules of DESIGN.md, counted with the counting build (loopwire_counting.node): global
// handles created and alive, and native allocations made by the addon and the core inside it.

const test = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const vm = require('node:vm');
const { loadNative } = require('../../addon/lib/binding.js');
const { createApi } = require('../../addon/lib/api.js');
const { listen } = require('./helpers/server.js');
const { KeepAliveClient } = require('./helpers/keepAlive.js');

const uWS = createApi(loadNative('loopwire_counting'));
const counters = () => uWS._counters();
// The first call creates the pool whose slots it reports (one allocation): made here, so that a test run on its own
// (--test-name-pattern) does not count it in its first measurement.
counters();
const WARM_UP = 50;
const MEASURED = 500;

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const POST = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello';

/** Sends `count` requests on one keep-alive connection; returns the counter deltas over the measured part. */
async function measure(port, request, count = MEASURED) {
  const client = await KeepAliveClient.open(port);
  try {
    for (let i = 0; i < WARM_UP; i++) assert.match(await client.request(request), /^HTTP\/1\.1 200 OK/);
    const before = counters();
    for (let i = 0; i < count; i++) assert.match(await client.request(request), /^HTTP\/1\.1 200 OK/);
    const after = counters();
    return {
      handlesCreated: after.handlesCreated - before.handlesCreated,
      handlesAlive: after.handlesAlive - before.handlesAlive,
      allocations: after.allocations - before.allocations,
      pendingResponses: after.pendingResponses,
    };
  } finally {
    client.close();
  }
}

test('the counting build is the same API with _counters()', () => {
  const values = counters();
  for (const key of ['handlesCreated', 'handlesAlive', 'allocations', 'pendingResponses', 'lentStores']) {
    assert.equal(typeof values[key], 'number', key);
  }
  assert.equal(typeof require('../../addon/lib/index.js')._counters, 'undefined', 'ordinary builds do not count');
});

test('res and req pointers are stored without V8\'s setter on this Node (no V8 sandbox on x64 or arm64)', () => {
  // addon/src/PointerFields.h; on a V8 where it could not learn the slot, each request pays four calls more.
  assert.equal(counters().directPointerFields, 1);
});

test('string arguments are read where V8 keeps them on this Node (no V8 sandbox, no pointer compression)', () => {
  // addon/src/SequentialStrings.h; on a V8 where it could not learn the layout, each string costs V8's copy.
  // (That every shape of string still arrives byte for byte is string-arguments.test.js's.)
  assert.equal(counters().directStrings, 1);
});

test('a plain synchronous request creates no global handle and allocates nothing', async (t) => {
  const { port } = listen(t, (app) => app.get('/', (res, req) => {
    res.writeHeader('x-host', req.getHeader('host')).end('plain');
  }), uWS);
  const delta = await measure(port, GET);
  assert.deepEqual(delta, { handlesCreated: 0, handlesAlive: 0, allocations: 0, pendingResponses: 0 });
});

test('app.static serves a cached file, a 304 and a streamed file with no call into JavaScript, no handle and no allocation', async (t) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-counting-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'small.txt'), 's'.repeat(1024));
  fs.writeFileSync(path.join(root, 'large.bin'), Buffer.alloc(300 * 1024, 'l'));
  // compress: false: a variant made in the background joins its entry (allocating, once) at a time no test controls.
  const { port } = listen(t, (app) => app.static('/', root, { compress: false })
    .get('/js', (res) => res.end('from JavaScript')), uWS);
  const first = await fetch(`http://127.0.0.1:${port}/small.txt`);
  const etag = first.headers.get('etag');
  await first.text();
  const requests = {
    cached: 'GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n',
    notModified: `GET /small.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\n\r\n`,
    streamed: 'GET /large.bin HTTP/1.1\r\nHost: x\r\n\r\n',
  };
  for (const [name, request] of Object.entries(requests)) {
    const client = await KeepAliveClient.open(port);
    try {
      for (let i = 0; i < WARM_UP; i++) assert.match(await client.request(request), /^HTTP\/1\.1 (200|304) /, name);
      const before = counters();
      for (let i = 0; i < 100; i++) assert.match(await client.request(request), /^HTTP\/1\.1 (200|304) /, name);
      const after = counters();
      assert.equal(after.callsIntoJavaScript - before.callsIntoJavaScript, 0, `${name}: calls into JavaScript`);
      assert.equal(after.handlesCreated - before.handlesCreated, 0, `${name}: handles`);
      assert.equal(after.allocations - before.allocations, 0, `${name}: allocations`);
    } finally {
      client.close();
    }
  }
  // The counter counts: a route handled in JavaScript enters it once per request.
  const delta = await measure(port, 'GET /js HTTP/1.1\r\nHost: x\r\n\r\n', 100);
  assert.equal(delta.allocations, 0);
  const before = counters().callsIntoJavaScript;
  const client = await KeepAliveClient.open(port);
  try {
    for (let i = 0; i < 10; i++) await client.request('GET /js HTTP/1.1\r\nHost: x\r\n\r\n');
  } finally {
    client.close();
  }
  assert.ok(counters().callsIntoJavaScript - before >= 10);
});

test('res.sendFile of a cached file, with or without options, creates no handle and allocates nothing', async (t) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-counting-sendfile-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'small.txt'), 's'.repeat(1024));
  const file = path.join(root, 'small.txt');
  // compress: false, as above: a variant joining its entry allocates once, at a time no test controls.
  const options = { root, maxAge: 60, compress: false };
  const { port } = listen(t, (app) => app
    .get('/absolute', (res) => { res.sendFile(file, { compress: false }); })
    .get('/rooted', (res) => { res.sendFile('small.txt', options); }), uWS);
  for (const route of ['/absolute', '/rooted']) {
    const delta = await measure(port, `GET ${route} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.deepEqual(delta, { handlesCreated: 0, handlesAlive: 0, allocations: 0, pendingResponses: 0 }, route);
  }
});

test('app.compress: a gzip- or zstd-coded end() allocates nothing natively once its compressor is warm', async (t) => {
  const zlib = require('node:zlib');
  const body = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i % 17}` })));
  const { port } = listen(t, (app) => app.compress('/*')
    .get('/json', (res) => { res.writeHeader('content-type', 'application/json').end(body); }), uWS);
  // zstd where this Node's binary exports it (22.15 and later).
  const codings = ['gzip', ...(typeof zlib.zstdCompressSync === 'function' ? ['zstd'] : [])];
  for (const coding of codings) {
    const delta = await measure(port, `GET /json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${coding}\r\n\r\n`);
    assert.deepEqual(delta, { handlesCreated: 0, handlesAlive: 0, allocations: 0, pendingResponses: 0 }, coding);
  }
});

test('a body string longer than the inline storage allocates nothing per request once the buffer is sized', async (t) => {
  // A cached page sent on every request (ASCII, copied as is) and a Latin-1 one (encoded to UTF-8): both go through
  // the thread's scratch buffer, which keeps its size between requests.
  const page = 'a cached page line of 32 bytes.\n'.repeat(32);
  const latin1 = 'd\u00e9j\u00e0 vu '.repeat(80);
  const { port } = listen(t, (app) => app
    .get('/page', (res) => { res.end(page); })
    .get('/latin1', (res) => { res.end(latin1); }), uWS);
  for (const path of ['/page', '/latin1']) {
    const delta = await measure(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.deepEqual(delta, { handlesCreated: 0, handlesAlive: 0, allocations: 0, pendingResponses: 0 }, path);
  }
});

test('a request with onAborted holds exactly one global handle, released when it completes', async (t) => {
  const alive = [];
  const { port } = listen(t, (app) => app.get('/', (res) => {
    const before = counters();
    res.onAborted(() => {});
    alive.push(counters().handlesAlive - before.handlesAlive);
    setImmediate(() => res.cork(() => res.end('async')));
  }), uWS);
  const delta = await measure(port, GET);
  assert.equal(delta.handlesCreated, MEASURED, 'one handle per request');
  assert.equal(delta.handlesAlive, 0, 'all released');
  assert.equal(delta.pendingResponses, 0);
  assert.ok(alive.every((count) => count === 1));
});

test('onAborted, onData, onDataV2 and onWritable together still hold one handle per request', async (t) => {
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    res.onWritable(() => true);
    res.onDataV2(() => {});
    res.onData((chunk, isLast) => { if (isLast) res.end('body'); });
  }), uWS);
  const delta = await measure(port, POST);
  assert.equal(delta.handlesCreated, MEASURED);
  assert.equal(delta.handlesAlive, 0);
});

test('registering onData, onDataV2, onWritable, onAborted or collectBody allocates nothing natively', async (t) => {
  const registrations = {
    onAborted: (res) => res.onAborted(() => {}),
    onData: (res) => res.onData(() => {}),
    onDataV2: (res) => res.onDataV2(() => {}),
    onWritable: (res) => res.onWritable(() => true),
    collectBody: (res) => res.collectBody(1024, () => {}),
  };
  const allocations = {};
  const { port } = listen(t, (app) => app.post('/', (res) => {
    for (const [name, register] of Object.entries(registrations)) {
      const before = counters().allocations;
      register(res);
      register(res);
      allocations[name] = (allocations[name] || 0) + counters().allocations - before;
    }
    res.end('registered');
  }), uWS);
  await measure(port, POST, 100);
  assert.deepEqual(allocations, { onAborted: 0, onData: 0, onDataV2: 0, onWritable: 0, collectBody: 0 });
});

test('a POST read with onData allocates nothing natively per request: V8 makes the chunk\'s backing store', async (t) => {
  const { port } = listen(t, (app) => {
    app.post('/', (res) => {
      res.onAborted(() => {});
      res.onData((chunk, isLast) => { if (isLast) res.end(String(chunk.byteLength)); });
    });
  }, uWS);
  const delta = await measure(port, POST);
  // Lending bytes zero-copy needs a V8 BackingStore (allocated by V8: the one native allocation per chunk) owned
  // by a shared_ptr, whose reference count lives in a slot of StoreOwnerPool rather than on the heap.
  assert.equal(delta.allocations, 0);
  assert.equal(delta.handlesCreated, MEASURED);
  assert.equal(delta.handlesAlive, 0);
});

test('the reference counts of lent chunks go back to their pool when V8 drops the chunks', async (t) => {
  const held = [];
  const { port } = listen(t, (app) => {
    app.post('/', (res) => {
      res.onAborted(() => {});
      res.onData((chunk, isLast) => {
        held.push(counters().lentStores);
        if (isLast) res.end(String(chunk.byteLength));
      });
    });
  }, uWS);
  await measure(port, POST, 100);
  assert.ok(held.length > 0 && held.every((count) => count >= 1), 'a chunk holds a slot while it is lent');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  // V8 frees collected buffers' stores shortly after a collection, possibly on another thread.
  for (let round = 0; round < 100 && counters().lentStores > 0; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // One stays: the store kept for the next chunk over the same bytes (LentBuffer.cpp).
  assert.ok(counters().lentStores <= 1, `${counters().lentStores} slots still in use`);
});

test('a chunk of the same length where the last one was reuses its backing store, unless a transfer holds it', async (t) => {
  const kept = [];
  const { port } = listen(t, (app) => {
    app.post('/', (res) => {
      res.onAborted(() => {});
      res.onData((chunk, isLast) => {
        const text = Buffer.from(chunk).toString('latin1');
        if (text === 'keep!') kept.push(structuredClone(chunk, { transfer: [chunk] }));
        if (isLast) res.end(text);
      });
    });
  }, uWS);
  const post = (body) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const client = await KeepAliveClient.open(port);
  t.after(() => client.close());
  const send = async (body) => assert.match(await client.request(post(body)), new RegExp(`\r\n\r\n${body}$`));
  const made = () => counters().lentStoresMade;
  for (let i = 0; i < WARM_UP; i++) await send('hello');

  let before = made();
  for (let i = 0; i < 100; i++) await send('hello');
  assert.equal(made() - before, 0, 'the same bytes at the same place: one store serves every chunk');

  before = made();
  for (let i = 0; i < 100; i++) await send(i % 2 === 0 ? 'hello!!' : 'hello');
  assert.equal(made() - before, 100, 'a length other than the last chunk\'s: a store of its own');

  await send('hello');
  await send('keep!');
  assert.equal(kept.length, 1);
  before = made();
  await send('hello');
  assert.equal(made() - before, 1, 'the store a transferred copy holds is not lent again');
  assert.equal(kept[0].byteLength, 5, 'the transferred copy keeps its length');
});

/** Opens a WebSocket on port with a raw socket; resolves with echo(frame, replyBytes) once upgraded. */
function openRawWebSocket(port) {
  const net = require('node:net');
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
                   'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    });
    let buffered = Buffer.alloc(0);
    let upgraded = false;
    let waiting = null;
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        upgraded = true;
        buffered = buffered.subarray(end + 4);
        resolve({
          socket,
          echo(frame, replyBytes) {
            return new Promise((done) => {
              waiting = { replyBytes, done };
              socket.write(frame);
              socket.emit('data', Buffer.alloc(0));
            });
          },
        });
      }
      if (waiting && buffered.length >= waiting.replyBytes) {
        buffered = buffered.subarray(waiting.replyBytes);
        const { done } = waiting;
        waiting = null;
        done();
      }
    });
    socket.on('error', reject);
  });
}

/** A masked binary client frame of `length` bytes. */
function maskedFrame(length) {
  const header = length < 126 ? Buffer.from([0x82, 0x80 | length]) : Buffer.from([0x82, 0x80 | 126, length >> 8, length & 0xff]);
  const mask = Buffer.from([1, 2, 3, 4]);
  const payload = Buffer.alloc(length, 7);
  for (let i = 0; i < length; i++) payload[i] ^= mask[i % 4];
  return Buffer.concat([header, mask, payload]);
}

test('a WebSocket echo costs at most one native allocation per message and no global handle', async (t) => {
  const { port } = listen(t, (app) => app.ws('/*', {
    maxPayloadLength: 64 * 1024,
    message: (ws, message, isBinary) => ws.send(message, isBinary),
  }), uWS);
  for (const length of [20, 4096]) {
    const ws = await openRawWebSocket(port);
    const frame = maskedFrame(length);
    const replyBytes = (length < 126 ? 2 : 4) + length;
    for (let i = 0; i < WARM_UP; i++) await ws.echo(frame, replyBytes);
    const before = counters();
    for (let i = 0; i < MEASURED; i++) await ws.echo(frame, replyBytes);
    const after = counters();
    ws.socket.destroy();
    t.diagnostic(`${length}-byte echo: ${(after.allocations - before.allocations) / MEASURED} native allocations and ` +
                 `${(after.handlesCreated - before.handlesCreated) / MEASURED} global handles per message`);
    assert.equal(after.handlesCreated - before.handlesCreated, 0, `global handles per ${length}-byte message`);
    assert.ok(after.allocations - before.allocations <= MEASURED,
      `${after.allocations - before.allocations} native allocations for ${MEASURED} messages of ${length} bytes`);
  }
});

test('a WebSocket holds one global handle (its ws object) while open, released when it closes', async (t) => {
  let closedCount = 0;
  const { port } = listen(t, (app) => app.ws('/*', { close: () => { closedCount += 1; } }), uWS);
  const before = counters().handlesAlive;
  const sockets = [];
  for (let i = 0; i < 20; i++) sockets.push(await openRawWebSocket(port));
  assert.equal(counters().handlesAlive - before, 20);
  for (const ws of sockets) ws.socket.destroy();
  const deadline = Date.now() + 5000;
  while (closedCount < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(closedCount, 20);
  assert.equal(counters().handlesAlive - before, 0);
});
