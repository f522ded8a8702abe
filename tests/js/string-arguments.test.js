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
