#!/usr/bin/env node
// Builds the Node addon from source with CMake, against the headers of the Node that runs this script (the
// include/node folder beside its executable): no download, no node-gyp. npm's install step runs it when no
// prebuilt binary fits (scripts/install.js); run it yourself to build from source.
//
//   node scripts/build-addon.js [--if-missing] [--quiet] [--asan]
//
// Output: build-addon/node-v<ABI>/loopwire.node, where <ABI> is process.versions.modules, so builds for several
// Node versions live side by side; in a checkout with the tests (tests/js/), also loopwire_counting.node, the
// test build that counts handles and allocations (an installed package skips it). A build here is what
// require('loopwire') loads first, before any prebuilt binary. --if-missing does nothing when the modules exist
// already (npm start, the benchmarks). --asan builds loopwire.node with AddressSanitizer and
// UndefinedBehaviorSanitizer (g++) into build-addon/node-v<ABI>-asan/; node loads it with the sanitizer runtime
// preloaded (see tests/js/helpers/sanitized.js).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { BuildError, buildAddon, root } = require('./lib/addon-build.js');

const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const sanitized = args.has('--asan');
const buildDir = path.join(root, 'build-addon', `node-v${process.versions.modules}${sanitized ? '-asan' : ''}`);
const modules = fs.existsSync(path.join(root, 'tests', 'js')) && !sanitized ? ['loopwire', 'loopwire_counting'] : ['loopwire'];

if (args.has('--if-missing') && modules.every((name) => fs.existsSync(path.join(buildDir, `${name}.node`)))) {
  process.exit(0);
}

try {
  buildAddon({ nodeInclude: path.resolve(path.dirname(process.execPath), '..', 'include', 'node'), buildDir, modules,
               sanitized, quiet });
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  console.error(`loopwire: ${error.message}`);
  process.exit(1);
}
if (!quiet) console.log(`loopwire: built ${path.relative(root, path.join(buildDir, 'loopwire.node'))}`);
