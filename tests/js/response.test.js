'use strict';
// HttpResponse: writing status, headers and bodies in every form, streaming with tryEnd/onWritable, cork,
// close, pause/resume and the peer's address, over real clients.

const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { execFile } = require('node:child_process');
const path = require('node:path');
const { listen, raw, waitFor } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');

function headOf(answer) {
  return answer.slice(0, answer.indexOf('\r\n\r\n'));
}

test('writeStatus and writeHeader shape the head; end sends the body with Content-Length', async (t) => {
  const { url } = listen(t, (app) => app.get('/', (res) => {
    assert.equal(res.writeStatus('201 Created'), res);
    assert.equal(res.writeHeader('X-One', '1'), res);
    assert.equal(res.writeHeader('x-two', Buffer.from('2')), res);
    assert.equal(res.end('made'), res);
  }));
  const response = await fetch(url('/'));
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('x-one'), '1');
  assert.equal(response.headers.get('x-two'), '2');
  assert.equal(response.headers.get('content-length'), '4');
  assert.ok(response.headers.get('date'));
  assert.equal(await response.text(), 'made');
});

test('strings are sent as UTF-8 whatever V8 holds them as: ASCII, Latin-1, two-byte, short or long', async (t) => {
  // V8 keeps 'héllo' in one byte per character (Latin-1), which ASCII strings share a fast path with; 'é' must
  // still go out as two bytes.
  const bodies = {
    ascii: 'hello',
    latin1: 'héllo wörld',
    twoByte: 'héllo €',
    asciiAtInlineLimit: 'a'.repeat(512),
    asciiPastInlineLimit: 'b'.repeat(513),
    latin1PastInlineLimit: 'ü'.repeat(600),
    latin1LastByte: `${'c'.repeat(15)}ÿ`,
  };
  const { url } = listen(t, (app) => app.get('/:name', (res, req) => {
    const body = bodies[req.getParameter(0)];
    res.writeHeader('x-echo', body.slice(0, 11)).end(body);
  }));
  for (const [name, body] of Object.entries(bodies)) {
    const response = await fetch(url(`/${name}`));
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.deepEqual(bytes, Buffer.from(body, 'utf8'), name);
    assert.equal(Buffer.from(response.headers.get('x-echo'), 'latin1').toString('utf8'), body.slice(0, 11), name);
  }
});

test('every RecognizedString form is accepted for bodies and headers', async (t) => {
  const text = 'héllo wörld €';
  const bytes = Buffer.from(text);
  const forms = {
    string: text,
    buffer: bytes,
    arraybuffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    shared: (() => { const s = new SharedArrayBuffer(bytes.length); new Uint8Array(s).set(bytes); return s; })(),
    uint8: new Uint8Array(bytes),
    int8: new Int8Array(new Uint8Array(bytes).buffer),
    dataview: new DataView(new Uint8Array(bytes).buffer),
    uint16: new Uint16Array(Uint8Array.from([0x61, 0x62, 0x63, 0x64]).buffer),
    float64: new Float64Array(1),
  };
  const { url } = listen(t, (app) => app.get('/:form', (res, req) => {
    const value = forms[req.getParameter(0)];
    res.writeHeader('x-form', req.getParameter('form')).end(value);
  }));
  for (const [name, value] of Object.entries(forms)) {
    const response = await fetch(url(`/${name}`));
    assert.equal(response.headers.get('x-form'), name);
    const body = Buffer.from(await response.arrayBuffer());
    const expected = typeof value === 'string' ? Buffer.from(value)
      : ArrayBuffer.isView(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.from(value);
    assert.deepEqual(body, expected, name);
  }
});

test('wrong argument types throw TypeError and bad sizes RangeError, and the response still works', async (t) => {
  const errors = [];
  const { url } = listen(t, (app) => app.get('/', (res) => {
    for (const attempt of [
      () => res.writeStatus(200), () => res.writeHeader('a', 1), () => res.writeHeader(null, 'x'),
      () => res.write({}), () => res.end(42), () => res.tryEnd('x'), () => res.tryEnd('x', -1),
      () => res.tryEnd('x', 1.5), () => res.endWithoutBody('five'), () => res.endWithoutBody(-3),
      () => res.onAborted('no'), () => res.onData(), () => res.onDataV2(1), () => res.onWritable(null),
      () => res.collectBody('one', () => {}), () => res.collectBody(-1, () => {}), () => res.collectBody(10),
      () => res.cork(), () => res.end.call({}), () => res.getRemotePort.call(Object.create(res)),
      () => new res.constructor(), () => res.constructor(),
    ]) {
      try { attempt(); errors.push('no error'); } catch (error) { errors.push(error.constructor.name); }
    }
    res.end('still fine');
  }));
  const response = await fetch(url('/'));
  assert.equal(await response.text(), 'still fine');
  assert.deepEqual(errors, ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError',
                            'RangeError', 'RangeError', 'TypeError', 'RangeError', 'TypeError', 'TypeError',
                            'TypeError', 'TypeError', 'TypeError', 'RangeError', 'TypeError', 'TypeError',
                            'TypeError', 'TypeError', 'TypeError', 'TypeError']);
});

test('writeHeader and writeStatus throw a TypeError for CR, LF, NUL or a bad name (no response splitting)', async (t) => {
  const errors = [];
  const { port } = listen(t, (app) => app.get('/', (res) => {
    for (const call of [() => res.writeHeader('x-bad', 'a\r\nSet-Cookie: evil=1'), () => res.writeHeader('x-bad', 'a\nb'),
                        () => res.writeHeader('x-bad', 'a\0b'), () => res.writeHeader('bad name', 'x'),
                        () => res.writeHeader('bad:name', 'x'), () => res.writeHeader('', 'x'),
                        () => res.writeStatus('200 OK\r\nSet-Cookie: evil=1')]) {
      try { call(); errors.push('no error'); } catch (error) { errors.push(`${error.constructor.name}: ${error.message.split(':')[0]}`); }
    }
    res.writeHeader('x-good', 'fine').end('ok');
  }));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.doesNotMatch(answer, /evil|bad/);
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(headOf(answer), /x-good: fine/);
  assert.deepEqual(errors, [...Array(6).fill('TypeError: res.writeHeader'), 'TypeError: res.writeStatus']);
});

test('write() sends a chunked body that end() finishes', async (t) => {
  const { port, url } = listen(t, (app) => app.get('/', (res) => {
    assert.equal(res.write('one '), true);
    assert.equal(res.write(Buffer.from('two ')), true);
    res.end('three');
  }));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(headOf(answer), /Transfer-Encoding: chunked/i);
  assert.equal(await (await fetch(url('/'))).text(), 'one two three');
});

test('end(body, true) closes the connection after the response', async (t) => {
  const { port } = listen(t, (app) => app.get('/', (res) => res.end('bye', true)));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(headOf(answer), /Connection: close/i);
  assert.ok(answer.endsWith('bye'));
});

test('end reads closeConnection as JavaScript truthiness, as uWebSockets.js does', async (t) => {
  const flags = {
    true: true, one: 1, text: 'yes', object: {}, false: false, zero: 0, empty: '', null: null, none: undefined,
  };
  const { port } = listen(t, (app) => {
    for (const [name, flag] of Object.entries(flags)) app.get(`/${name}`, (res) => res.end(name, flag));
    app.get('/left-out', (res) => res.end('left-out'));
  });
  for (const name of [...Object.keys(flags), 'left-out']) {
    const request = `GET /${name} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const answer = await raw(port, request, { until: (s) => s.endsWith(name) });
    const closes = /Connection: close/i.test(headOf(answer));
    assert.equal(closes, ['true', 'one', 'text', 'object'].includes(name), name);
  }
});

test('endWithoutBody answers without a body, with or without a reported length', async (t) => {
  const { port } = listen(t, (app) => {
    app.get('/304', (res) => res.writeStatus('304 Not Modified').endWithoutBody());
    app.get('/len', (res) => res.endWithoutBody(1234, true));
  });
  const notModified = await raw(port, 'GET /304 HTTP/1.1\r\nHost: x\r\n\r\n', { until: (s) => s.includes('\r\n\r\n') });
  assert.match(notModified, /^HTTP\/1\.1 304 Not Modified/);
  const reported = await raw(port, 'HEAD /len HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(headOf(reported), /Content-Length: 1234/i);
  assert.ok(reported.endsWith('\r\n\r\n'));
});

test('tryEnd streams a large body with onWritable, getWriteOffset tracks it, and [ok, done] ends it', async (t) => {
  const total = 8 * 1024 * 1024;
  const body = Buffer.alloc(total, 'x');
  const seen = { partial: 0, writable: 0, done: false };
  const { port } = listen(t, (app) => app.get('/big', (res) => {
    res.onAborted(() => { seen.aborted = true; });
    const send = () => {
      const offset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(body.subarray(offset), total);
      if (done) seen.done = true;
      if (!ok) seen.partial++;
      return ok;
    };
    res.onWritable((offset) => {
      seen.writable++;
      assert.equal(offset, res.getWriteOffset());
      return send();
    });
    send();
  }));
  // A client that reads slowly at first, so backpressure builds up.
  const received = await new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let bytes = 0;
    socket.pause();
    setTimeout(() => socket.resume(), 100);
    socket.on('data', (chunk) => {
      bytes += chunk.length;
      if (bytes >= total) socket.end();
    });
    socket.on('end', () => resolve(bytes));
    socket.on('error', reject);
    socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  assert.ok(received > total);
  assert.ok(seen.done);
  assert.ok(seen.partial > 0, 'the body did not fit at once');
  assert.ok(seen.writable > 0, 'onWritable ran');
  assert.equal(seen.aborted, undefined);
});

test('cork runs its callback at once, corked, and passes its exceptions on', async (t) => {
  const { port } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => {});
    setTimeout(() => {
      let ran = false;
      assert.equal(res.cork(() => {
        ran = true;
        res.writeStatus('202 Accepted').writeHeader('x-corked', 'yes').end('corked');
      }), res);
      assert.ok(ran);
    }, 5);
  }));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 202 Accepted\r\n/);
  assert.match(answer, /x-corked: yes/);

  const { port: port2 } = listen(t, (app) => app.get('/', (res) => {
    assert.throws(() => res.cork(() => { throw new Error('inside cork'); }), /inside cork/);
    res.end('after');
  }));
  assert.ok((await raw(port2, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).endsWith('after'));
});

test('writes outside a callback are corked automatically: one response, one segment', async (t) => {
  const { port } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => {});
    setImmediate(() => {
      res.writeStatus('200 OK');
      res.writeHeader('a', '1');
      res.writeHeader('b', '2');
      res.end('late');
    });
  }));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(answer, /a: 1\r\nb: 2\r\n/);
  assert.ok(answer.endsWith('late'));
});

test('close() closes at once and runs onAborted', async (t) => {
  const events = [];
  const { port } = listen(t, (app) => app.get('/', (res) => {
    res.onAborted(() => events.push('aborted'));
    setTimeout(() => { assert.equal(res.close(), res); events.push('closed'); }, 5);
  }));
  const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(answer, '');
  assert.deepEqual(events, ['aborted', 'closed']);
});

test('pause() stops the body and resume() continues it', async (t) => {
  const log = [];
  const { port } = listen(t, (app) => app.post('/', (res) => {
    res.onAborted(() => {});
    let bytes = 0;
    res.onData((chunk, isLast) => {
      bytes += chunk.byteLength;
      if (log.length === 0) {
        assert.equal(res.pause(), res);
        log.push('paused');
        setTimeout(() => { log.push('resumed'); assert.equal(res.resume(), res); }, 50);
      }
      if (isLast) res.end(String(bytes));
    });
  }));
  const socket = net.connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345');
  await waitFor(() => log.length === 1, 'the first chunk');
  socket.write('67890');
  const answer = await new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.endsWith('10')) resolve(text);
    });
  });
  assert.deepEqual(log, ['paused', 'resumed']);
  assert.ok(answer.endsWith('10'));
});

test('getRemoteAddress, getRemoteAddressAsText, getRemotePort and the proxied variants', async (t) => {
  let seen;
  const { url } = listen(t, (app) => app.get('/', (res) => {
    seen = {
      binary: Buffer.from(res.getRemoteAddress()),
      text: Buffer.from(res.getRemoteAddressAsText()).toString(),
      port: res.getRemotePort(),
      proxied: res.getProxiedRemoteAddress().byteLength + res.getProxiedRemoteAddressAsText().byteLength,
      proxiedPort: res.getProxiedRemotePort(),
    };
    res.end('ok');
  }));
  await (await fetch(url('/'))).text();
  assert.equal(seen.text, '127.0.0.1');
  assert.ok(seen.binary.equals(Buffer.from([127, 0, 0, 1])) ||
            seen.binary.equals(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1])));
  assert.ok(seen.port > 0);
  assert.equal(seen.proxied, 0);
  assert.equal(seen.proxiedPort, 0);
});

test('curl gets the answer too', async (t) => {
  const { url } = listen(t, (app) => app.get('/curl', (res) => res.writeHeader('x-client', 'curl').end('curled')));
  const output = await new Promise((resolve, reject) => {
    // Without a sanitizer runtime preloaded for node (scripts/test-js-sanitized.js), which curl must not get.
    const env = { ...process.env };
    delete env.LD_PRELOAD;
    execFile('curl', ['-s', '-i', url('/curl')], { env }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
  assert.match(output, /x-client: curl/);
  assert.ok(output.endsWith('curled'));
});

test('writeStatus after the status line and writeHeader after the body are ignored, with one warning each', async () => {
  const result = await runNode([path.join(__dirname, 'fixtures', 'late-writes.js')]);
  assert.equal(result.code, 0, result.stderr);
  // Ignored as in uWebSockets.js, so the 404 goes out as what was written first.
  assert.deepEqual(result.stdout.trim().split('\n'), ['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created', 'HTTP/1.1 200 OK',
                                                       'HTTP/1.1 201 Created']);
  const warnings = result.stderr.split('\n').filter((line) => line.startsWith('loopwire: warning:'));
  assert.equal(warnings.length, 2, result.stderr);
  assert.match(warnings[0], /writeStatus after the status line was written/);
  assert.match(warnings[1], /writeHeader after the body began/);
});
