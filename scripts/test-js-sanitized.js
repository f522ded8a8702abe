#!/usr/bin/env node
// Runs the JS suite (tests/js/) against the addon built with AddressSanitizer and UndefinedBehaviorSanitizer
// (node scripts/build-addon.js --asan, which this builds first), the sanitizer runtime preloaded into node. The
// counting tests are left out: counting.test.js needs the counting build, which is not sanitized, and
// process-allocations.test.js preloads its own allocation counter, which cannot share the process with the
// sanitizer's allocator (and would count its allocations). Called by
// `npm run test:asan` after the C++ suite.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const COUNTING_TESTS = new Set(['counting.test.js', 'process-allocations.test.js']);
const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-addon.js'), '--asan', '--quiet'],
                        { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const { sanitizedEnvironment } = require(path.join(root, 'tests', 'js', 'helpers', 'sanitized.js'));
const env = sanitizedEnvironment();
if (!env) {
  console.error('loopwire: the sanitized addon was not found after building it');
  process.exit(1);
}
const folder = path.join(root, 'tests', 'js');
const files = fs.readdirSync(folder)
  .filter((name) => name.endsWith('.test.js') && !COUNTING_TESTS.has(name))
  .map((name) => path.join(folder, name));
const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
process.exit(run.status ?? 1);
