'use strict';
// res and req carry their native pointers in internal fields that the addon stores with a plain store where V8
// allows it (addon/src/PointerFields.h): objects so stored survive a garbage collector under stress, stay
// answerable, and, once stale, still refuse every call. (That the plain store is in use is counting.test.js's.)

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { runNode } = require('./helpers/child.js');

const ROUNDS = 2000;
// Two kinds of stress: a full collection every 500 allocations, marked incrementally and compacting (some 650 in
// a run); and a young generation of 1 MiB, scavenged some 200 times in a run, which moves every new res and req.
const GC_STRESS = {
  'full collections': ['--stress-incremental-marking', '--stress-compaction', '--gc-interval=500'],
  scavenges: ['--max-semi-space-size=1'],
};

for (const [stress, flags] of Object.entries(GC_STRESS)) {
  test(`res and req stored directly survive ${stress}, and stale ones still throw`, async () => {
    const fixture = path.join(__dirname, 'fixtures', 'collected-wrappers.js');
    const { code, signal, stdout, stderr } = await runNode([...flags, fixture, String(ROUNDS)], { timeoutMs: 120000 });
    assert.equal(signal, null, stderr);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout.trim().split('\n').pop());
    assert.deepEqual(result, {
      now: ROUNDS / 2,
      later: ROUNDS / 2,
      wrong: 0,
      staleCalls: result.staleCalls,
      staleThrows: result.staleCalls,
    });
    assert.ok(result.staleCalls >= 2 * 64, `stale calls: ${result.staleCalls}`);
  });
}
