#!/usr/bin/env node
// npm's install step for loopwire. In an installed package it uses the prebuilt binary that fits this Node and
// platform (prebuilds/, scripts/prebuild.js), after checking that it loads, and builds from source only when none
// fits, or when asked: `npm install --build-from-source` (npm_config_build_from_source), or
// LOOPWIRE_BUILD_FROM_SOURCE=1. In a checkout with the tests it always builds from source (the tests need the
// counting build too). It says which one it took. require('loopwire') does not depend on this step: it finds a
// fitting prebuilt binary by itself (addon/lib/binding.js), so npm's approval of install scripts does not matter.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { libc, prebuiltPath } = require('../addon/lib/binding.js');

const root = path.resolve(__dirname, '..');
const here = `Node ${process.version} (ABI ${process.versions.modules}), ${process.platform}-${process.arch}` +
  (libc() ? `, ${libc()}` : '');

function buildFromSource(reason) {
  console.log(`loopwire: ${reason}: building the addon from source for ${here} (CMake and a C++20 compiler)`);
  const build = spawnSync(process.execPath, [path.join(__dirname, 'build-addon.js')], { stdio: 'inherit' });
  process.exit(build.status ?? 1);
}

const truthy = (value) => value !== undefined && !['', '0', 'false'].includes(value.toLowerCase());
if (fs.existsSync(path.join(root, 'tests', 'js'))) buildFromSource('a checkout with the tests');
if (truthy(process.env.npm_config_build_from_source) || truthy(process.env.LOOPWIRE_BUILD_FROM_SOURCE)) {
  buildFromSource('asked for');
}
const prebuilt = prebuiltPath();
if (!fs.existsSync(prebuilt)) buildFromSource(`no prebuilt binary fits (${path.relative(root, prebuilt)})`);
const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(prebuilt)})`], { encoding: 'utf8' });
if (probe.status !== 0) {
  const why = (probe.stderr || '').split('\n').find((line) => /Error/.test(line)) || 'it does not load';
  buildFromSource(`the prebuilt binary ${path.relative(root, prebuilt)} does not load here (${why.trim()})`);
}
console.log(`loopwire: using the prebuilt binary ${path.relative(root, prebuilt)} for ${here}; ` +
            '`npm rebuild loopwire --build-from-source` builds one instead');
