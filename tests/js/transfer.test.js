'use strict';
// Issue 11, point 4: a transferred body chunk must never crash the process, on Node 20 and later, whatever the
// handler does with it afterwards. Run in a child process (a crash must not take the test runner with it), with
// the normal build and, when it is built (npm run test:asan builds it), with the sanitized one.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { runNode } = require('./helpers/child.js');
const { sanitizedEnvironment } = require('./helpers/sanitized.js');

const fixture = path.join(__dirname, 'fixtures', 'transferred-chunks.js');

test('chunks transferred out of onData keep their memory, from the receive buffer and the pipelining buffer', async () => {
  const { code, signal, stdout, stderr } = await runNode(['--expose-gc', fixture], { timeoutMs: 60000 });
  assert.equal(signal, null, stderr);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^ok \d+/);
});

test('the same under AddressSanitizer', async (t) => {
  const env = sanitizedEnvironment();
  if (!env) return t.skip('the sanitized addon is not built (node scripts/build-addon.js --asan)');
  const { code, signal, stdout, stderr } = await runNode(['--expose-gc', fixture], { timeoutMs: 120000, env });
  assert.equal(signal, null, stderr);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^ok \d+/);
});
