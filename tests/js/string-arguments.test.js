'use strict';
// String arguments (header names and values, bodies) reach the wire byte for byte whatever shape V8 gave the
// string: read where V8 keeps them for sequential one-byte strings (addon/src/SequentialStrings.h), through V8's
// copy for the others (cons, sliced, two-byte); also while the garbage collector moves strings between the
// making of an argument and its reading. (That the direct read is in use is counting.test.js's.)

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const uWS = require('../../addon/lib/index.js');
const { listen } = require('./helpers/server.js');
const { runNode } = require('./helpers/child.js');
const { KeepAliveClient } = require('./helpers/keepAlive.js');

test('every shape of string is written as its UTF-8 bytes', async (t) => {
  const long = 'x'.repeat(700);
  const built = ['alpha', 'beta', 'gamma'].join('-');
  const flattened = `${built}${built}`;
  flattened.charCodeAt(5);
  const bodies = {
    literal: 'Hello world!',
    built,
    cons: `${built}:${long}`,
    sliced: `${long}${built}`.slice(3, 60),
    flattened,
    latin1: 'caf\u00e9 cr\u00e8me \u00ff',
    twoByte: 'καλημέρα 世界 🎉',
    long: long + long,
    empty: '',
    internalized: Object.keys({ aPropertyNameLongerThanThirteen: 1 })[0],
  };
  const { port } = listen(t, (app) => app.get('/:shape', (res, req) => {
    const body = bodies[req.getParameter(0)];
    res.writeHeader('x-built', built).writeHeader(`x-${built}`, bodies.latin1).writeStatus('200 OK').end(body);
  }), uWS);
  for (const [shape, body] of Object.entries(bodies)) {
    const response = await fetch(`http://127.0.0.1:${port}/${shape}`);
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), Buffer.from(body), shape);
    assert.equal(response.headers.get('x-built'), built, shape);
    // fetch reads header bytes as Latin-1.
    assert.equal(response.headers.get(`x-${built}`), Buffer.from(bodies.latin1).toString('latin1'), shape);
  }
});

// Arguments of every length around the eight-byte steps of the copy (addon/src/BytesArgument.cpp reads the last
// word overlapping the one before it, and 4 to 7 bytes as two halves): each reaches the wire byte for byte, a
// non-ASCII byte at any position is encoded, and lookup keys of every length (read in place, not copied) find
// their header and query parameter.
test('arguments of every length are written, and keys of every length looked up, byte for byte', async (t) => {
  const text = (length, at) => Array.from({ length }, (_, i) => (i === at ? '\u00e9' : String.fromCharCode(97 + (i % 26))))
    .join('');
  const { port } = listen(t, (app) => app.get('/:length', (res, req) => {
    const length = Number(req.getParameter(0));
    const key = `k${text(length)}`;
    const value = text(length);
    const accented = [0, length >> 1, length - 1].map((at) => text(length, at)).join(',');
    const found = `${req.getHeader(key)}|${req.getQuery(key)}|${req.getHeader('x-none')}`;
    res.writeHeader(key, value).writeHeader('x-accented', accented).writeHeader('x-found', found).end(value);
  }), uWS);
  const client = await KeepAliveClient.open(port);
  t.after(() => client.close());
  for (let length = 0; length <= 40; length++) {
    const key = `k${text(length)}`;
    const value = text(length);
    const response = await client.request(`GET /${length}?${key}=q${length} HTTP/1.1\r\nHost: h\r\n` +
      `${key}: h${length}\r\n\r\n`);
    const bytes = Buffer.from(response, 'latin1');
    assert.ok(response.includes(`\r\n${key}: ${value}\r\n`), `${length}: ${response}`);
    assert.ok(response.includes(`\r\nx-found: h${length}|q${length}|\r\n`), `${length}: ${response}`);
    if (length > 0) {
      const accented = Buffer.from([0, length >> 1, length - 1].map((at) => text(length, at)).join(','))
        .toString('latin1');
      assert.ok(response.includes(`\r\nx-accented: ${accented}\r\n`), `${length}: ${response}`);
    }
    assert.ok(bytes.subarray(bytes.length - length).equals(Buffer.from(value)), `${length}`);
  }
});

const GC_STRESS = {
  scavenges: ['--max-semi-space-size=1'],
  'full collections': ['--stress-compaction', '--gc-interval=400'],
};

for (const [stress, flags] of Object.entries(GC_STRESS)) {
  test(`strings moved by ${stress} are written byte for byte`, async () => {
    const fixture = path.join(__dirname, 'fixtures', 'string-shapes.js');
    const rounds = 1500;
    const { code, signal, stdout, stderr } = await runNode([...flags, fixture, String(rounds)], { timeoutMs: 120000 });
    assert.equal(signal, null, stderr);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout.trim().split('\n').pop());
    assert.deepEqual(result, { right: rounds, wrong: 0, first: null });
  });
}
