'use strict';
// The environment that runs a child node with the sanitized addon (node scripts/build-addon.js --asan): the
// module from build-addon/node-v<ABI>-asan/, and g++'s AddressSanitizer runtime preloaded, because node itself
// is not instrumented. Null when that build is missing.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

function sanitizedEnvironment() {
  const folder = path.resolve(__dirname, '..', '..', '..', 'build-addon', `node-v${process.versions.modules}-asan`);
  if (!fs.existsSync(path.join(folder, 'loopwire.node'))) return null;
  const runtime = execFileSync('g++', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
  return {
    LOOPWIRE_ADDON_DIR: folder,
    LD_PRELOAD: runtime,
    // node's own allocations at exit are not this test's business; every other report aborts the child.
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
  };
}

module.exports = { sanitizedEnvironment };
