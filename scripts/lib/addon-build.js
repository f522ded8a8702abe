'use strict';
// Builds the Node addon with CMake against one Node's headers: what scripts/build-addon.js (this Node, from
// source) and scripts/prebuild.js (every supported Node, for the package's prebuilt binaries) share.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const minimumCmake = [3, 25];

class BuildError extends Error {}

function capture(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
  return result.error || result.status !== 0 ? null : result.stdout;
}

function run(command, commandArgs, quiet) {
  const result = spawnSync(command, commandArgs, { stdio: quiet ? 'pipe' : 'inherit' });
  if (result.error) return false;
  if (result.status !== 0 && quiet) {
    process.stderr.write(result.stdout || '');
    process.stderr.write(result.stderr || '');
  }
  return result.status === 0;
}

// The compilers a target is built with: the host's (CXX, c++, g++, clang++), or a Debian cross compiler.
function findCompilers(cross) {
  if (cross) {
    const cxx = `${cross}-g++`;
    return capture(cxx, ['--version']) === null ? null : { cxx, cc: `${cross}-gcc` };
  }
  const cxx = [process.env.CXX, 'c++', 'g++', 'clang++'].filter(Boolean)
    .find((compiler) => capture(compiler, ['--version']) !== null);
  return cxx ? { cxx } : null;
}

/** The NODE_MODULE_VERSION (ABI) the headers in nodeInclude are for. */
function abiOf(nodeInclude) {
  const header = fs.readFileSync(path.join(nodeInclude, 'node_version.h'), 'utf8');
  const match = header.match(/#define NODE_MODULE_VERSION (\d+)/);
  if (!match) throw new BuildError(`no NODE_MODULE_VERSION in ${nodeInclude}/node_version.h`);
  return Number(match[1]);
}

/**
 * The build folder of the addon for an official Node of one ABI and architecture: scripts/prebuild.js makes the
 * package's binary there, and scripts/test-node.js runs the JS suite on the same build.
 */
function prebuildFolder(arch, abi) {
  return path.join(root, 'build-addon', `prebuild-linux-${arch}-v${abi}`);
}

/**
 * Configures (once) and builds modules ("loopwire", "loopwire_counting") into buildDir against the Node headers
 * in nodeInclude. Options: sanitized (ASan + UBSan, g++), cross (a Debian cross-compiler triplet such as
 * "aarch64-linux-gnu", with processor its CMake name), quiet. Throws a BuildError saying what is missing or
 * failed.
 */
function buildAddon({ nodeInclude, buildDir, modules, sanitized = false, cross = null, processor = null,
                      quiet = false }) {
  if (!fs.existsSync(path.join(nodeInclude, 'node.h'))) {
    throw new BuildError(`the Node headers are missing: expected ${nodeInclude}/node.h (install a Node that ships ` +
                         "include/node: the official tarball, or the distribution's nodejs headers package)");
  }
  const cmakeVersion = capture('cmake', ['--version']);
  if (cmakeVersion === null) {
    throw new BuildError('building the addon needs CMake 3.25 or newer: install it (Debian/Ubuntu: sudo apt-get ' +
                         'install cmake)');
  }
  const [major, minor] = (cmakeVersion.match(/(\d+)\.(\d+)/) || [0, 0, 0]).slice(1).map(Number);
  if (major < minimumCmake[0] || (major === minimumCmake[0] && minor < minimumCmake[1])) {
    throw new BuildError(`building the addon needs CMake 3.25 or newer, this is ${major}.${minor}: install a ` +
                         "newer one (pip install cmake, or your distribution's backports)");
  }
  const compilers = findCompilers(cross);
  if (!compilers) {
    throw new BuildError(cross ? `cross-building for ${cross} needs ${cross}-g++ (Debian: sudo apt-get install ` +
                                 `g++-${cross})`
                               : 'building the addon needs a C++20 compiler: install one (Debian/Ubuntu: sudo ' +
                                 'apt-get install g++)');
  }

  const cache = path.join(buildDir, 'CMakeCache.txt');
  const generated = ['build.ninja', 'Makefile'].some((file) => fs.existsSync(path.join(buildDir, file)));
  const configured = generated && fs.existsSync(cache) &&
    fs.readFileSync(cache, 'utf8').includes(`LW_NODE_INCLUDE_DIR:PATH=${nodeInclude}\n`);
  if (!configured) {
    const generator = capture('ninja', ['--version']) !== null ? ['-G', 'Ninja'] : [];
    if (fs.existsSync(cache)) fs.rmSync(buildDir, { recursive: true, force: true });
    const settings = [
      sanitized ? '-DCMAKE_BUILD_TYPE=RelWithDebInfo' : '-DCMAKE_BUILD_TYPE=Release',
      '-DLW_BUILD_ADDON=ON',
      `-DLW_NODE_INCLUDE_DIR=${nodeInclude}`,
      '-DLW_BUILD_TESTS=OFF',
      '-DLW_BUILD_EXAMPLES=OFF',
      '-DLW_BUILD_BENCH=OFF',
      '-DLW_BUILD_FUZZERS=OFF',
    ];
    if (sanitized) settings.push('-DLW_SANITIZE=ON', '-DCMAKE_CXX_COMPILER=g++', '-DCMAKE_C_COMPILER=gcc');
    if (cross) {
      settings.push(`-DCMAKE_CXX_COMPILER=${compilers.cxx}`, `-DCMAKE_C_COMPILER=${compilers.cc}`,
                    '-DCMAKE_SYSTEM_NAME=Linux', `-DCMAKE_SYSTEM_PROCESSOR=${processor}`);
    }
    if (!run('cmake', ['-S', root, '-B', buildDir, ...generator, ...settings], quiet)) {
      throw new BuildError(`configuring the addon failed (cmake -S ${root} -B ${buildDir})`);
    }
  }
  const jobs = String(Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
  if (!run('cmake', ['--build', buildDir, '--parallel', jobs, '--target', ...modules.map((name) => `${name}_node`)],
           quiet)) {
    throw new BuildError(`building the addon failed (cmake --build ${buildDir})`);
  }
  return modules.map((name) => path.join(buildDir, `${name}.node`));
}

module.exports = { BuildError, abiOf, buildAddon, capture, prebuildFolder, root };
