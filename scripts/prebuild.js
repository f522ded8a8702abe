#!/usr/bin/env node
// npm run prebuild [-- --majors 22,24] [--arches x64,arm64]
//
// Builds the prebuilt binaries the package carries: for every supported Node line (scripts/lib/node-versions.js)
// and every Linux architecture this machine can build for (x64; arm64 when Debian's aarch64 cross compiler is
// installed), against the headers of that Node's official build (the npm package node-linux-<arch>@<major>, in
// build-node/), stripped, into
// prebuilds/linux-<arch>/node.abi<ABI>.glibc.node, the layout addon/lib/binding.js looks for (prebuildify's).
// Then each one serves a request in its own Node: natively for x64, under qemu-aarch64 for arm64 when qemu-user
// is installed (otherwise it says so). Prints, for each, its size and the newest glibc and libstdc++ symbol
// versions it needs (libstdc++ is linked as node links it, dynamically: linked in, the static libstdc++ of this
// machine's g++ would need glibc 2.36, through its own calls).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { BuildError, abiOf, buildAddon, capture, prebuildFolder, root } = require('./lib/addon-build.js');
const { SUPPORTED_MAJORS, installNode } = require('./lib/node-versions.js');

const ARCHES = {
  x64: { cross: null, processor: 'x86_64', strip: 'strip', qemu: null },
  arm64: { cross: 'aarch64-linux-gnu', processor: 'aarch64', strip: 'aarch64-linux-gnu-strip',
           qemu: { command: 'qemu-aarch64', sysroot: '/usr/aarch64-linux-gnu' } },
};

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1].split(',') : fallback;
}

function fail(message) {
  console.error(`loopwire: ${message}`);
  process.exit(1);
}

// The newest version of a library's symbols (GLIBC_2.32, GLIBCXX_3.4.29) the module imports: the oldest such
// library it loads with.
function newestVersion(file, library) {
  const symbols = capture('readelf', ['--dyn-syms', '-W', file]) || '';
  const versions = [...symbols.matchAll(new RegExp(`@${library}_([0-9.]+)`, 'g'))]
    .map((match) => match[1].split('.').map(Number));
  versions.sort((a, b) => { for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0); return 0; });
  return versions.length ? versions[versions.length - 1].join('.') : 'none';
}

// Starts an App from the module, answers one request to itself, and prints what it got.
const SMOKE = `
  const uWS = require(process.argv[1]);
  const app = uWS.App().get('/*', (res, req) => res.end('prebuilt ' + req.getUrl()));
  app.listen('127.0.0.1', 0, async (token) => {
    const response = await fetch('http://127.0.0.1:' + uWS.us_socket_local_port(token) + '/ok');
    console.log(await response.text());
    app.close();
  });`;

function smoke(runner, file) {
  const result = spawnSync(runner[0], [...runner.slice(1), '-e', SMOKE, file], { encoding: 'utf8', timeout: 120000 });
  return result.status === 0 && result.stdout.trim() === 'prebuilt /ok' ? 'serves'
    : `FAILED (${(result.stderr || result.error?.message || '').trim().split('\n').slice(-1)[0]})`;
}

if (process.platform !== 'linux' || process.arch !== 'x64') fail('prebuild runs on linux-x64 (it cross-builds arm64)');
const majors = option('--majors', SUPPORTED_MAJORS.map(String)).map(Number);
const wanted = option('--arches', Object.keys(ARCHES));
const rows = [];
for (const arch of wanted) {
  const target = ARCHES[arch];
  if (!target) fail(`unknown architecture ${arch} (one of ${Object.keys(ARCHES).join(', ')})`);
  if (target.cross && capture(`${target.cross}-g++`, ['--version']) === null) {
    console.log(`loopwire: no ${target.cross}-g++ (Debian: apt-get install g++-${target.cross}): no ${arch} binaries`);
    continue;
  }
  for (const major of majors) {
    let node;
    try {
      node = installNode(major, arch);
    } catch (error) {
      fail(error.message);
    }
    const abi = abiOf(node.include);
    const buildDir = prebuildFolder(arch, abi);
    let built;
    try {
      [built] = buildAddon({ nodeInclude: node.include, buildDir, modules: ['loopwire'], cross: target.cross,
                             processor: target.processor, quiet: true });
    } catch (error) {
      if (error instanceof BuildError) fail(`${arch}, Node ${major}: ${error.message}`);
      throw error;
    }
    const out = path.join(root, 'prebuilds', `linux-${arch}`, `node.abi${abi}.glibc.node`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(built, out);
    if (spawnSync(target.strip, ['--strip-unneeded', out]).status !== 0) fail(`${target.strip} failed on ${out}`);
    let check = smoke([node.node], out);
    if (target.qemu) {
      check = capture(target.qemu.command, ['--version']) === null ? 'not run (no qemu-user)'
        : smoke([target.qemu.command, '-L', target.qemu.sysroot, node.node], out);
    }
    rows.push({ file: path.relative(root, out), node: major, abi, bytes: fs.statSync(out).size,
                glibc: newestVersion(out, 'GLIBC'), glibcxx: newestVersion(out, 'GLIBCXX'), check });
  }
}

console.log('\n| binary | Node | ABI | size | needs glibc | needs libstdc++ | smoke test |\n' +
            '| --- | --: | --: | --: | --: | --: | --- |');
for (const row of rows) {
  console.log(`| ${row.file} | ${row.node} | ${row.abi} | ${(row.bytes / 1024).toFixed(0)} KiB | ${row.glibc} | ` +
              `GLIBCXX ${row.glibcxx} | ${row.check} |`);
}
if (rows.some((row) => row.check.startsWith('FAILED'))) process.exit(1);
