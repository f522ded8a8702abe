#!/usr/bin/env node
// Runs the JS suite (tests/js/, through scripts/test-js.js) against the addon built with AddressSanitizer and
// UndefinedBehaviorSanitizer (node scripts/build-addon.js --asan, which this builds first), the sanitizer runtime
// preloaded into node. The counting tests are left out: counting.test.js needs the counting build, which is not
// sanitized, and process-allocations.test.js preloads its own allocation counter, which cannot share the process
// with the sanitizer's allocator (and would count its allocations). Called by `npm run test:asan` after the C++
// suite.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-addon.js'), '--asan', '--quiet'],
                        { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const { sanitizedEnvironment } = require(path.join(root, 'tests', 'js', 'helpers', 'sanitized.js'));
const env = sanitizedEnvironment();
if (!env) {
  console.error('loopwire: the sanitized addon was not found after building it');
  process.exit(1);
}
const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'test-js.js'), '--without-counting'],
                      { stdio: 'inherit', env: { ...process.env, ...env } });
process.exit(run.status ?? 1);
