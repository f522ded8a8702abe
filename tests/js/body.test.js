'use strict';
// Request bodies: onData and onDataV2 lend zero-copy ArrayBuffers detached after the call; collectBody
// assembles the body or reports an overflow with null. Also: callbacks run inside Node's callback scope, so
// promises and process.nextTick continue right after them.

const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { listen, raw, waitFor } = require('./helpers/server.js');

test('onData delivers the body in zero-copy chunks that are detached after the callback', async (t) => {
  const kept = [];
  const { url } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    const copies = [];
    res.onData((chunk, isLast) => {
      assert.ok(chunk instanceof ArrayBuffer);
      kept.push(chunk);
      copies.push(Buffer.from(chunk.slice(0)));
      if (isLast) res.end(Buffer.concat(copies));
    });
  }));
  const body = Buffer.alloc(300000, 'abcdefgh');
  const response = await fetch(url('/'), { method: 'POST', body });
  assert.deepEqual(Buffer.from(await response.arrayBuffer()), body);
  assert.ok(kept.length >= 1);
  for (const chunk of kept) assert.equal(chunk.byteLength, 0, 'a kept chunk reads as detached');
});

test('onData is called with an empty last chunk for a request without a body', async (t) => {
  const calls = [];
  const { url } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => {});
    res.onData((chunk, isLast) => {
      calls.push([chunk.byteLength, isLast]);
      if (isLast) res.end('done');
    });
  }));
  assert.equal(await (await fetch(url('/'))).text(), 'done');
  assert.deepEqual(calls, [[0, true]]);
});

test('onDataV2 gives the remaining length as a bigint, 0n on the last call; chunked bodies too', async (t) => {
  const calls = [];
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    let text = '';
    res.onDataV2((chunk, remaining) => {
      assert.equal(typeof remaining, 'bigint');
      calls.push(remaining);
      text += Buffer.from(chunk).toString();
      if (remaining === 0n) res.end(text);
    });
  }));
  const fixed = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
  assert.ok(fixed.endsWith('hello'));
  assert.deepEqual(calls, [0n]);
  calls.length = 0;
  const chunked = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
                                  '3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n');
  assert.ok(chunked.endsWith('abcdefg'));
  assert.equal(calls.at(-1), 0n);
  assert.ok(calls.slice(0, -1).every((remaining) => remaining > 0n));
});

test('collectBody gives the whole body once, in one piece or several', async (t) => {
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    assert.equal(res.collectBody(1 << 20, (body) => {
      res.end(`${body.byteLength}:${Buffer.from(body).subarray(0, 5).toString()}`);
    }), res);
  }));
  const single = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfirst');
  assert.ok(single.endsWith('5:first'));

  const socket = net.connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  let answer = '';
  socket.on('data', (chunk) => { answer += chunk; });
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
  for (let i = 0; i < 10; i++) {
    socket.write(Buffer.alloc(10000, String(i)));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await waitFor(() => answer.endsWith('100000:00000'), 'the collected body');

  const chunked = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
                                  '3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n');
  assert.ok(chunked.endsWith('7:abcde'));
});

test('a body collected from several pieces is owned by JavaScript and stays readable', async (t) => {
  let kept;
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    res.collectBody(1000, (body) => {
      kept = body;
      setImmediate(() => res.cork(() => res.end(String(kept.byteLength))));
    });
  }));
  const answer = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
                                 '3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n');
  assert.ok(answer.endsWith('\r\n7'));
  assert.equal(Buffer.from(kept).toString(), 'abcdefg');
});

test('collectBody calls back with null once the body exceeds maxSize', async (t) => {
  const results = [];
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    res.collectBody(10, (body) => {
      results.push(body);
      res.writeStatus('413 Payload Too Large').end();
    });
  }));
  const answer = await raw(port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\nConnection: close\r\n\r\n' +
                                 '01234567890123456789');
  assert.match(answer, /^HTTP\/1\.1 413/);
  assert.deepEqual(results, [null]);
});

test('onDataV2 replaces collectBody and collectBody replaces onDataV2', async (t) => {
  const { url } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    res.collectBody(100, () => res.end('collect'));
    res.onDataV2((chunk, remaining) => { if (remaining === 0n) res.end('v2'); });
  }));
  assert.equal(await (await fetch(url('/'), { method: 'POST', body: 'x' })).text(), 'v2');
});

test('promises and process.nextTick queued by a handler run right after it', async (t) => {
  const { url } = listen(t, (app) => {
    app.get('/tick', (res) => {
      res.onAborted(() => {});
      process.nextTick(() => res.end('tick'));
    });
    app.get('/await', async (res) => {
      res.onAborted(() => {});
      await Promise.resolve();
      await null;
      res.end('awaited');
    });
    app.post('/data', (res) => {
      res.onAborted(() => {});
      res.onData((chunk, isLast) => { if (isLast) process.nextTick(() => res.end('data tick')); });
    });
  });
  assert.equal(await (await fetch(url('/tick'))).text(), 'tick');
  assert.equal(await (await fetch(url('/await'))).text(), 'awaited');
  assert.equal(await (await fetch(url('/data'), { method: 'POST', body: 'x' })).text(), 'data tick');
});
