#!/usr/bin/env node
// Builds the Node addon from source with CMake, against the headers of the Node that runs this script (the
// include/node folder beside its executable): no download, no node-gyp. npm runs it on `npm install`.
//
//   node scripts/build-addon.js [--if-missing] [--quiet] [--asan]
//
// Output: build-addon/node-v<ABI>/loopwire.node, where <ABI> is process.versions.modules, so builds for several
// Node versions live side by side; in a checkout with the tests (tests/js/), also loopwire_counting.node, the
// test build that counts handles and allocations (an installed package skips it). --if-missing does nothing
// when the modules exist already (npm start, the benchmarks). --asan builds loopwire.node with AddressSanitizer
// and UndefinedBehaviorSanitizer (g++) into build-addon/node-v<ABI>-asan/; node loads it with the sanitizer
// runtime preloaded (see tests/js/helpers/sanitized.js).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const sanitized = args.has('--asan');
const buildDir = path.join(root, 'build-addon', `node-v${process.versions.modules}${sanitized ? '-asan' : ''}`);
const modules = fs.existsSync(path.join(root, 'tests', 'js')) && !sanitized ? ['loopwire', 'loopwire_counting'] : ['loopwire'];
const minimumCmake = [3, 25];

function fail(message) {
  console.error(`loopwire: ${message}`);
  process.exit(1);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: quiet ? 'pipe' : 'inherit', ...options });
  if (result.error) return { ok: false, error: result.error };
  if (result.status !== 0 && quiet) {
    process.stderr.write(result.stdout || '');
    process.stderr.write(result.stderr || '');
  }
  return { ok: result.status === 0, status: result.status };
}

function capture(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
  return result.error || result.status !== 0 ? null : result.stdout;
}

function findCompiler() {
  const candidates = [process.env.CXX, 'c++', 'g++', 'clang++'].filter(Boolean);
  return candidates.find((compiler) => capture(compiler, ['--version']) !== null);
}

if (args.has('--if-missing') && modules.every((name) => fs.existsSync(path.join(buildDir, `${name}.node`)))) {
  process.exit(0);
}

const nodeInclude = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
if (!fs.existsSync(path.join(nodeInclude, 'node.h'))) {
  fail(`the headers of this Node (${process.execPath}) are missing: install a Node that ships include/node ` +
       `(the official tarball, or the distribution's nodejs headers package), expected at ${nodeInclude}`);
}

const cmakeVersion = capture('cmake', ['--version']);
if (cmakeVersion === null) {
  fail('building the addon needs CMake 3.25 or newer: install it (Debian/Ubuntu: sudo apt-get install cmake)');
}
const [major, minor] = (cmakeVersion.match(/(\d+)\.(\d+)/) || [0, 0, 0]).slice(1).map(Number);
if (major < minimumCmake[0] || (major === minimumCmake[0] && minor < minimumCmake[1])) {
  fail(`building the addon needs CMake 3.25 or newer, this is ${major}.${minor}: install a newer one ` +
       '(pip install cmake, or your distribution\'s backports)');
}
if (!findCompiler()) {
  fail('building the addon needs a C++20 compiler: install one (Debian/Ubuntu: sudo apt-get install g++)');
}

const cache = path.join(buildDir, 'CMakeCache.txt');
const generated = ['build.ninja', 'Makefile'].some((file) => fs.existsSync(path.join(buildDir, file)));
const configured = generated && fs.existsSync(cache) &&
  fs.readFileSync(cache, 'utf8').includes(`LW_NODE_INCLUDE_DIR:PATH=${nodeInclude}\n`);
if (!configured) {
  const generator = capture('ninja', ['--version']) !== null ? ['-G', 'Ninja'] : [];
  if (fs.existsSync(cache)) fs.rmSync(buildDir, { recursive: true, force: true });
  const configure = run('cmake', [
    '-S', root, '-B', buildDir, ...generator,
    sanitized ? '-DCMAKE_BUILD_TYPE=RelWithDebInfo' : '-DCMAKE_BUILD_TYPE=Release',
    ...(sanitized ? ['-DLW_SANITIZE=ON', '-DCMAKE_CXX_COMPILER=g++', '-DCMAKE_C_COMPILER=gcc'] : []),
    '-DLW_BUILD_ADDON=ON',
    `-DLW_NODE_INCLUDE_DIR=${nodeInclude}`,
    '-DLW_BUILD_TESTS=OFF',
    '-DLW_BUILD_EXAMPLES=OFF',
    '-DLW_BUILD_BENCH=OFF',
    '-DLW_BUILD_FUZZERS=OFF',
  ]);
  if (!configure.ok) fail(`configuring the addon failed (cmake -S ${root} -B ${buildDir})`);
}

const jobs = String(Math.max(1, require('node:os').availableParallelism?.() ?? require('node:os').cpus().length));
const build = run('cmake', ['--build', buildDir, '--parallel', jobs, '--target', ...modules.map((name) => `${name}_node`)]);
if (!build.ok) fail(`building the addon failed (cmake --build ${buildDir})`);
if (!quiet) console.log(`loopwire: built ${path.relative(root, path.join(buildDir, 'loopwire.node'))}`);
