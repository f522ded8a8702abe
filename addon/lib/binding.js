'use strict';
// Loads the native module for the Node that is running, from the first of these that exists:
//   1. LOOPWIRE_ADDON_DIR/<name>.node, when that variable names a folder (a sanitizer build, for instance);
//   2. build-addon/node-v<ABI>/<name>.node, built from source by scripts/build-addon.js (ABI being
//      process.versions.modules, so one checkout holds builds for several Node versions at once);
//   3. prebuilds/<platform>-<arch>/node.abi<ABI>.<libc>.node, the prebuilt binaries the package carries
//      (scripts/prebuild.js; named as prebuildify names them, so tools that know that layout find them).
// A build from source comes first, as node-gyp-build does it: `npm install --build-from-source` replaces a
// prebuilt binary that does not suit.

const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

/** The C library this process runs on: "glibc" or "musl" (prebuilt binaries are made for one of them). */
function libc() {
  if (process.platform !== 'linux') return null;
  const report = process.report?.getReport?.();
  return report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/** Where the prebuilt binary for this Node and platform lies in the package (whether or not it is there). */
function prebuiltPath({ abi = process.versions.modules, platform = process.platform, arch = process.arch,
                        libcName = libc() } = {}) {
  const tags = ['node', `abi${abi}`, libcName].filter(Boolean).join('.');
  return path.join(root, 'prebuilds', `${platform}-${arch}`, `${tags}.node`);
}

/** The module file loadNative(name) would load, and where it comes from, or null when there is none. */
function findNative(name) {
  if (process.env.LOOPWIRE_ADDON_DIR) {
    return { file: path.join(path.resolve(process.env.LOOPWIRE_ADDON_DIR), `${name}.node`), source: 'LOOPWIRE_ADDON_DIR' };
  }
  const built = path.join(root, 'build-addon', `node-v${process.versions.modules}`, `${name}.node`);
  if (fs.existsSync(built)) return { file: built, source: 'built from source' };
  if (name === 'loopwire') {
    const prebuilt = prebuiltPath();
    if (fs.existsSync(prebuilt)) return { file: prebuilt, source: 'prebuilt' };
  }
  return null;
}

/**
 * Returns the exports of the native module `name` ("loopwire", or "loopwire_counting", the test build that counts
 * handles and allocations), found as above.
 */
function loadNative(name) {
  const found = findNative(name);
  if (!found) {
    throw new Error(`loopwire: no native addon for this Node (${process.version}, ABI ${process.versions.modules}, ` +
                    `${process.platform}-${process.arch}${libc() ? `, ${libc()}` : ''}): the package has no prebuilt ` +
                    `binary for it (${path.relative(root, prebuiltPath())}), and none was built from source. Build ` +
                    `one with \`npm rebuild loopwire --build-from-source\` (CMake and a C++20 compiler), or \`node ` +
                    `scripts/build-addon.js\` in ${root}`);
  }
  return require(found.file);
}

module.exports = { findNative, libc, loadNative, prebuiltPath };
