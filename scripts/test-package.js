#!/usr/bin/env node
// npm run test:package: the package as a user installs it, on a machine without a compiler.
//
// Makes the prebuilt binaries when any is missing (scripts/prebuild.js), packs the package (npm pack), then, for
// every supported Node line (the official Node of that line, from build-node/), installs the tarball into a fresh
// project with cmake, ninja, make and every C and C++ compiler hidden from PATH, and checks that the install took
// the prebuilt binary and built nothing, and that the installed package serves a hello world over HTTP and echoes
// over wss. Prints the tarball's size and contents per platform, and the install times; finally installs it once
// more with --build-from-source, compilers visible (ccache on, unless LW_PACKAGE_COLD_BUILD=1), and checks that it
// serves. Exits non-zero on any failure.
'use strict';

const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { SUPPORTED_MAJORS, installNode } = require('./lib/node-versions.js');
const { prebuiltPath } = require('../addon/lib/binding.js');

const root = path.resolve(__dirname, '..');
const HIDDEN = ['cmake', 'ninja', 'make', 'cc', 'gcc', 'g++', 'c++', 'clang', 'clang++', 'cpp', 'ld',
                'aarch64-linux-gnu-g++', 'aarch64-linux-gnu-gcc'];

function fail(message) {
  console.error(`loopwire: test:package: ${message}`);
  process.exit(1);
}

function seconds(since) {
  return ((Date.now() - since) / 1000).toFixed(1);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-package-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

// 1. The prebuilt binaries, for every line (arm64 too when the cross compiler is here).
const missing = SUPPORTED_MAJORS.some((major) => !fs.existsSync(prebuiltPath({
  abi: spawnSync(installNode(major).node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim(),
  arch: 'x64', platform: 'linux', libcName: 'glibc' })));
if (missing && spawnSync(process.execPath, [path.join(__dirname, 'prebuild.js')], { stdio: 'inherit' }).status !== 0) {
  fail('the prebuilt binaries could not be made');
}

// 2. The tarball.
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root }))[0];
const tarball = path.join(work, packed.filename);
const prebuilt = packed.files.filter((file) => file.path.startsWith('prebuilds/'));
console.log(`== ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} ` +
            `KiB unpacked, ${packed.entryCount} files, of which ${prebuilt.length} prebuilt binaries:`);
for (const file of prebuilt) console.log(`   ${file.path} (${(file.size / 1024).toFixed(0)} KiB)`);
if (prebuilt.length === 0) fail('the tarball carries no prebuilt binary');

// 3. A PATH where the build tools do not exist: each name runs a script that says so and fails.
const shims = path.join(work, 'no-compilers');
fs.mkdirSync(shims);
for (const tool of HIDDEN) {
  fs.writeFileSync(path.join(shims, tool), `#!/bin/sh\necho "${tool}: hidden by test:package" >&2\nexit 127\n`,
                   { mode: 0o755 });
}

// A hello world over HTTP and an echo over wss, from the installed package.
const CHECK = `
  const { execFileSync } = require('node:child_process');
  const fs = require('node:fs');
  const path = require('node:path');
  const uWS = require('loopwire');
  const WebSocket = require('ws');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const http = uWS.App().get('/*', (res, req) => res.end('hello ' + req.getUrl()));
  const tls = uWS.SSLApp({ key_file_name: 'key.pem', cert_file_name: 'cert.pem' })
    .ws('/*', { message: (ws, message, isBinary) => ws.send(message, isBinary) });
  let httpToken, tlsToken;
  http.listen('127.0.0.1', 0, (token) => { httpToken = token; });
  tls.listen('127.0.0.1', 0, (token) => { tlsToken = token; });
  (async () => {
    const text = await (await fetch('http://127.0.0.1:' + uWS.us_socket_local_port(httpToken) + '/world')).text();
    const client = new WebSocket('wss://127.0.0.1:' + uWS.us_socket_local_port(tlsToken) + '/', { rejectUnauthorized: false });
    const echo = await new Promise((resolve, reject) => {
      client.once('open', () => client.send('over wss'));
      client.once('message', (data) => resolve(data.toString()));
      client.once('error', reject);
    });
    client.close();
    http.close();
    tls.close();
    console.log(text + ' | ' + echo);
  })().catch((error) => { console.error(error); process.exit(1); });
`;

function install(nodeBin, { hideCompilers, extra = [] }) {
  const project = fs.mkdtempSync(path.join(work, 'project-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true }));
  const env = { ...process.env, PATH: `${hideCompilers ? `${shims}:` : ''}${path.dirname(nodeBin)}:${process.env.PATH}` };
  delete env.CXX;
  delete env.CC;
  const started = Date.now();
  // npm runs on that Node too (its executable comes first in PATH), as in a user's shell.
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', ...extra, tarball,
                                   'ws@^8'], { cwd: project, env, encoding: 'utf8' });
  return { project, env, result, time: seconds(started) };
}

const rows = [];
for (const major of SUPPORTED_MAJORS) {
  const { node } = installNode(major);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const { project, env, result, time } = install(node, { hideCompilers: true });
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0) fail(`Node ${version}: npm install failed without a compiler:\n${output}`);
  const installed = path.join(project, 'node_modules', 'loopwire');
  if (fs.existsSync(path.join(installed, 'build-addon'))) fail(`Node ${version}: the install built from source`);
  const took = output.split('\n').find((line) => line.startsWith('loopwire: ')) ||
    '(no install message: npm did not run the install script, and require finds the binary itself)';
  const check = spawnSync(node, ['-e', CHECK], { cwd: project, env, encoding: 'utf8', timeout: 60000 });
  if (check.status !== 0 || check.stdout.trim() !== 'hello /world | over wss') {
    fail(`Node ${version}: the installed package did not serve:\n${check.stdout}${check.stderr}`);
  }
  rows.push({ version, time, took: took.trim() });
}
console.log('\n| Node | install without a compiler | what the install said |\n| --- | --: | --- |');
for (const row of rows) console.log(`| ${row.version} | ${row.time} s | ${row.took} |`);

// 4. For comparison: the same install, building from source.
const { node } = installNode(SUPPORTED_MAJORS[SUPPORTED_MAJORS.length - 1]);
// What is checked is that the packed sources build; ccache may serve the compiles the run has made already. A
// user's first build has nothing cached: LW_PACKAGE_COLD_BUILD=1 turns ccache off, for the time that takes.
// The project is a new temporary folder each time: ccache is told to read the paths under it as relative ones, so
// that one run's compiles serve the next.
const coldBuild = process.env.LW_PACKAGE_COLD_BUILD === '1';
const cacheSettings = coldBuild ? { CCACHE_DISABLE: '1' } : { CCACHE_BASEDIR: work, CCACHE_NOHASHDIR: '1' };
Object.assign(process.env, cacheSettings);
const fromSource = install(node, { hideCompilers: false, extra: ['--build-from-source'] });
for (const name of Object.keys(cacheSettings)) delete process.env[name];
if (fromSource.result.status !== 0) {
  fail(`npm install --build-from-source failed:\n${fromSource.result.stdout}${fromSource.result.stderr}`);
}
const sourceCheck = spawnSync(node, ['-e', CHECK], { cwd: fromSource.project, env: fromSource.env, encoding: 'utf8',
                                                     timeout: 60000 });
if (sourceCheck.status !== 0) fail(`the package built from source did not serve:\n${sourceCheck.stderr}`);
console.log(`\nnpm install --build-from-source (Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}, ` +
            `compilers visible, ${coldBuild ? 'ccache off' : 'ccache on'}): ${fromSource.time} s`);
