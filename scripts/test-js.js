#!/usr/bin/env node
// Runs the JS suite (every tests/js/*.test.js) on the node that runs this script: npm test, npm run check,
// scripts/test-node.js (another Node) and scripts/test-js-sanitized.js (the sanitized addon) all run it this way.
//
//   node scripts/test-js.js [--without-counting]
//
// The files run in parallel, LW_TEST_CONCURRENCY at a time (default: twice the CPUs; node:test's own default is one
// fewer than the CPUs, one file at a time on two): they are isolated (port 0, their own temporary folders and
// Redis servers) and most of their time is spent waiting on sockets, timers and child processes. Then the files
// that measure a ratio over a stretch of time under load run alone, so that the other files' load cannot move
// them. --without-counting leaves out the files that need the counting build or preload their own allocator
// (the sanitized run). The addon is whichever loopwire finds (addon/lib/binding.js): LOOPWIRE_ADDON_DIR when set.
// Exits with the suite's status.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// Counted per request over seconds of load: another file's load would change what each request is charged.
const ALONE = new Set(['process-allocations.test.js']);
// Need the counting build (loopwire_counting.node), or preload an allocation counter of their own.
const COUNTING = new Set(['counting.test.js', 'process-allocations.test.js']);

const withoutCounting = process.argv.includes('--without-counting');
const concurrency = Number(process.env.LW_TEST_CONCURRENCY) || 2 * (os.availableParallelism?.() ?? os.cpus().length);
// The files, not the folder: Node 22 and later take a folder argument as a module to run.
const files = fs.readdirSync(path.join(root, 'tests', 'js'))
  .filter((name) => name.endsWith('.test.js') && !(withoutCounting && COUNTING.has(name)))
  .sort();

function runTests(names, filesAtOnce) {
  if (names.length === 0) return 0;
  const result = spawnSync(process.execPath,
                           ['--test', `--test-concurrency=${filesAtOnce}`,
                            ...names.map((name) => path.join('tests', 'js', name))],
                           { stdio: 'inherit', cwd: root });
  if (result.error) {
    console.error(`loopwire: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

const together = runTests(files.filter((name) => !ALONE.has(name)), concurrency);
const alone = runTests(files.filter((name) => ALONE.has(name)), 1);
process.exit(together !== 0 ? together : alone);
