'use strict';
// The static/* scenarios' pieces: the document root ({docroot}), the configuration files of nginx and h2o (written
// per start with the port the runner picked), the system programs they are, the npm stacks of the JavaScript
// competitors, the media-type comparison and the table's rows. nginx and h2o check their own configuration
// (`nginx -t`, `h2o -t`) where they are installed. Over real sockets: bench/ab/integration/static.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const { fill, programPath, serverFor } = require('../arms');
const { compareAnswers, HEADER_VIEWS } = require('../check');
const { GZIP_LEVEL, compressibleText, docrootFiles, fileBytes, makeDocroot, printableBytes } = require('../docroot');
const { loadArgs } = require('../load');
const { packageName } = require('../npmcache');
const { renderConfig, withPort } = require('../server');
const stacks = require('../stacks');
const { UWS_PACKAGE } = require('../uws');
const { h2oConfig, nginxConfig } = require('../../scenarios/configs');
const { IMPLEMENTATIONS, SCENARIOS, STATIC_FILES, GZIP_FILES, TLS_ARGS, PRECOMPRESSED_ARG } =
  require('../../scenarios/scenarios');

const ROOT = path.resolve(__dirname, '../../..');
const STATIC_IMPLEMENTATIONS = ['express-static', 'fastify-static', 'h2o', 'loopwire-cpp', 'loopwire-js', 'nginx'];
const staticScenario = (name) => SCENARIOS.find((s) => s.name === name);
const server = (scenario, impl) => scenario.servers[impl];

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-static-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// An arm of impl with the run's files, as setup.js makes it.
const armOf = (impl, extra = {}) => ({ side: 'base', kind: 'worktree', impl, root: ROOT, buildDir: '/nonexistent',
  docroot: '/run/docroot', tls: { key: '/run/key.pem', cert: '/run/cert.pem' }, scratch: '/run/servers', ...extra });

test('the document root: printable bytes, the same every time, a different sequence per size', () => {
  const kib = printableBytes(1024);
  assert.equal(kib.length, 1024);
  assert.ok(kib.every((byte) => byte >= 0x20 && byte <= 0x7e));
  assert.deepEqual(printableBytes(1024), kib);
  assert.notDeepEqual(printableBytes(2048).subarray(0, 1024), kib);
  // Every printable byte occurs: no short cycle.
  assert.equal(new Set(printableBytes(STATIC_FILES['1mb.txt'].size)).size, 0x7f - 0x20);
  // The bytes the static/* scenarios have always served (their results stay comparable with earlier runs).
  const sha256 = (bytes) => require('node:crypto').createHash('sha256').update(bytes).digest('hex');
  assert.equal(sha256(fileBytes(STATIC_FILES['1kb.txt'])),
    '5c8a038b079bedb9c336db404b028353f2ddd9f113b4123ece731f8233739991');
  assert.equal(sha256(fileBytes(STATIC_FILES['1mb.txt'])),
    '572daeb3b055ac2bbe4dd967dd6abd703f4f37f2859fb52b1a402c5b3df3a511');
});

test('the compressible text: JSON lines of the exact size, the same every time, some six times smaller gzipped',
  () => {
    const text = compressibleText(GZIP_FILES['50kb.txt'].size);
    assert.equal(text.length, 50 * 1024);
    assert.deepEqual(compressibleText(50 * 1024), text);
    const lines = text.toString().split('\n');
    assert.deepEqual(JSON.parse(lines[0]), { id: 1, name: 'juliett kilo', tags: ['charlie', 'juliett'], score: 500 });
    assert.equal(lines.at(-1), '', 'ends with a newline');
    assert.ok(lines.slice(0, -2).every((line) => typeof JSON.parse(line).id === 'number'));
    const gzipped = zlib.gzipSync(text, { level: GZIP_LEVEL }).length;
    assert.ok(gzipped < text.length / 5, `${gzipped} bytes gzipped`);
    // Where random printable bytes give gzip little to take.
    assert.ok(zlib.gzipSync(printableBytes(text.length), { level: GZIP_LEVEL }).length > text.length * 0.75);
    assert.equal(compressibleText(1).toString(), '\n');
    assert.throws(() => fileBytes({ kind: 'binary', size: 1 }), /no docroot file kind called binary/);
  });

test('docrootFiles merges the chosen scenarios\' files and refuses one name as two different files', () => {
  assert.deepEqual(docrootFiles(SCENARIOS), {
    '1kb.txt': { kind: 'printable', size: 1024, gzip: false },
    '1mb.txt': { kind: 'printable', size: 1048576, gzip: false },
    '50kb.txt': { kind: 'text', size: 51200, gzip: true },
    '50kb.json': { kind: 'json', size: 51200, gzip: false },
    'hello.txt': { kind: 'hello', size: 12, gzip: false },
  });
  assert.deepEqual(docrootFiles(SCENARIOS.filter((s) => s.name.startsWith('http/'))), {});
  const file = (size, kind = 'printable', gzip = undefined) => ({ kind, size, gzip });
  assert.throws(() => docrootFiles([{ name: 'a', docroot: { 'x.txt': file(1) } },
    { name: 'b', docroot: { 'x.txt': file(2) } }]), /b: x\.txt is 2 bytes of printable here and 1 bytes of printable/);
  assert.throws(() => docrootFiles([{ name: 'a', docroot: { 'x.txt': file(1) } },
    { name: 'b', docroot: { 'x.txt': file(1, 'text') } }]), /1 bytes of text here/);
  assert.throws(() => docrootFiles([{ name: 'a', docroot: { 'x.txt': file(1, 'text') } },
    { name: 'b', docroot: { 'x.txt': file(1, 'text', true) } }]), /1 bytes of text \(and \.gz\) here/);
  assert.doesNotThrow(() => docrootFiles([{ name: 'a', docroot: { 'x.txt': file(1) } },
    { name: 'b', docroot: { 'x.txt': file(1, 'printable', false) } }]));
});

test('makeDocroot writes the files, and the .gz sibling of those that have one', (t) => {
  const dir = path.join(tempDir(t), 'docroot');
  assert.equal(makeDocroot(dir, { ...STATIC_FILES, ...GZIP_FILES }), dir);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['1kb.txt', '1mb.txt', '50kb.txt', '50kb.txt.gz']);
  assert.equal(fs.statSync(path.join(dir, '1mb.txt')).size, 1048576);
  assert.deepEqual(fs.readFileSync(path.join(dir, '1kb.txt')), printableBytes(1024));
  const text = fs.readFileSync(path.join(dir, '50kb.txt'));
  assert.deepEqual(text, compressibleText(51200));
  const gzipped = fs.readFileSync(path.join(dir, '50kb.txt.gz'));
  assert.deepEqual(zlib.gunzipSync(gzipped), text);
  assert.deepEqual(gzipped, zlib.gzipSync(text, { level: 9 }), 'made at level 9, the same bytes every run');
});

test('the static rows: one file each, the six servers, per MiB for the large file, TLS for -tls', () => {
  assert.deepEqual(SCENARIOS.filter((s) => s.docroot).map((s) => s.name),
    ['static/1kb', 'static/1mb', 'static/1mb-tls', 'static/gzip-50kb', 'compress/json-50kb',
      'compress/json-50kb-level6', 'h2/hello-world', 'h2/hello-1stream', 'h2c/hello-world', 'h2c/hello-1stream']);
  const rows = SCENARIOS.filter((s) => s.docroot === STATIC_FILES);
  assert.deepEqual(rows.map((s) => s.request.path), ['/1kb.txt', '/1mb.txt', '/1mb.txt']);
  assert.deepEqual(rows.map((s) => s.unit), ['request', 'MiB', 'MiB']);
  assert.deepEqual(rows.map((s) => s.request.tls), [false, false, true]);
  for (const s of rows) {
    assert.equal(s.connections, 100, s.name);
    assert.deepEqual(s.docroot, STATIC_FILES, s.name);
    assert.ok(STATIC_FILES[s.request.path.slice(1)], s.name);
    assert.deepEqual(s.request.headers, {}, s.name);
    assert.ok(!server(s, 'fastify-static').command.includes(PRECOMPRESSED_ARG), s.name);
    assert.ok(!/gzip|compressed/.test(server(s, 'nginx').config.template + server(s, 'h2o').config.template), s.name);
    assert.deepEqual(Object.keys(s.servers).sort(), STATIC_IMPLEMENTATIONS, s.name);
    assert.deepEqual(s.compareHeaders, ['content-length', { name: 'content-type', view: 'media-type' },
      'accept-ranges'], s.name);
    for (const [impl, server] of Object.entries(s.servers)) {
      assert.ok(IMPLEMENTATIONS[impl], impl);
      const text = [...server.command, server.config?.template ?? ''].join(' ');
      assert.match(text, /\{docroot\}/, `${s.name} ${impl}`);
      assert.equal(/\{tlsKey\}/.test(text) && /\{tlsCert\}/.test(text), s.request.tls, `${s.name} ${impl}`);
    }
  }
  assert.deepEqual(staticScenario('static/1mb-tls').servers['loopwire-cpp'].command,
    ['{build}/bench/scenarios/static', '--docroot', '{docroot}', ...TLS_ARGS]);
});

test('static/gzip-50kb: the text asked for with Accept-Encoding: gzip, from the .gz sibling, on the five servers ' +
  'that serve one', () => {
  const s = staticScenario('static/gzip-50kb');
  assert.deepEqual(s.request, { mode: 'http', headers: { 'Accept-Encoding': 'gzip' }, tls: false, method: 'GET',
    path: '/50kb.txt' });
  assert.deepEqual(loadArgs(s, 8080, { seconds: 3 }), ['http', '-c', '100', '-d', '3s', '-H', 'Accept-Encoding: gzip',
    'http://127.0.0.1:8080/50kb.txt']);
  assert.equal(s.unit, 'request');
  assert.deepEqual(s.docroot, GZIP_FILES);
  assert.deepEqual(GZIP_FILES, { '50kb.txt': { kind: 'text', size: 51200, gzip: true } });
  // express.static has no way to serve the sibling: the runner skips it ("has no express-static server").
  assert.deepEqual(Object.keys(s.servers).sort(), STATIC_IMPLEMENTATIONS.filter((impl) => impl !== 'express-static'));
  assert.match(serverFor(armOf('express-static'), s).skip, /static\/gzip-50kb has no express-static server/);
  assert.deepEqual(s.compareHeaders, ['content-length', { name: 'content-type', view: 'media-type' },
    'content-encoding']);
  // loopwire serves siblings by default; the others are told to.
  assert.deepEqual(server(s, 'loopwire-cpp').command, ['{build}/bench/scenarios/static', '--docroot', '{docroot}']);
  assert.ok(!server(s, 'loopwire-js').command.includes(PRECOMPRESSED_ARG));
  assert.equal(server(s, 'fastify-static').command.at(-1), PRECOMPRESSED_ARG);
  assert.ok(server(s, 'nginx').config.template.includes('    gzip_static on;\n    gzip_vary on;\n'));
  assert.ok(server(s, 'h2o').config.template.includes('        file.send-compressed: ON\n'));
});

test('static/gzip-50kb: a server that answers with the plain file, or without Content-Encoding, stops the run', () => {
  const scenario = staticScenario('static/gzip-50kb');
  const text = compressibleText(51200);
  const gzipped = zlib.gzipSync(text, { level: GZIP_LEVEL });
  const answer = (body, encoding) => ({ status: 200, body, headers: { 'content-type': 'text/plain',
    'content-length': String(body.length), ...(encoding ? { 'content-encoding': encoding } : {}) } });
  assert.equal(compareAnswers(scenario, [{ copy: 'base#1', answer: answer(gzipped, 'gzip') },
    { copy: 'head#1', answer: answer(gzipped, 'gzip') }]), null);
  assert.match(compareAnswers(scenario, [{ copy: 'base#1', answer: answer(gzipped, 'gzip') },
    { copy: 'head#1', answer: answer(text, null) }]), /content-encoding: \(absent\)/);
  assert.match(compareAnswers(scenario, [{ copy: 'base#1', answer: answer(gzipped, 'gzip') },
    { copy: 'head#1', answer: answer(gzipped, null) }]), /content-encoding: \(absent\)/);
});

test('the static JavaScript servers take --precompressed', () => {
  const { parseStaticArgs } = require('../../scenarios/js/static/args');
  const args = ['--module', 'm', '--docroot', '/d', '--port', '0'];
  assert.deepEqual(parseStaticArgs(args), { port: 0, modulePath: 'm', docroot: '/d', tls: null, precompressed: false });
  assert.equal(parseStaticArgs([...args, PRECOMPRESSED_ARG]).precompressed, true);
  assert.equal(parseStaticArgs([PRECOMPRESSED_ARG, ...args]).docroot, '/d');
});

test('{docroot} is the run\'s folder; without one the scenario is skipped', () => {
  assert.equal(fill('--docroot={docroot}', armOf('loopwire-js')), '--docroot=/run/docroot');
  const scenario = staticScenario('static/1kb');
  const spec = serverFor(armOf('loopwire-js'), scenario);
  assert.deepEqual(spec.argv, [process.execPath, `${ROOT}/bench/scenarios/js/static/loopwire.js`, '--module', ROOT,
    '--docroot', '/run/docroot', '--port', '0']);
  assert.equal(spec.fixedPort, false);
  assert.match(serverFor(armOf('loopwire-js', { docroot: null }), scenario).skip, /document root/);
  const express = serverFor(armOf('express-static'), staticScenario('static/1mb-tls'));
  if (!express.skip) {
    assert.deepEqual(express.argv.slice(2, 4), ['--module', stacks.ULTIMATE_EXPRESS_MODULE]);
    assert.deepEqual(express.argv.slice(-6), ['--key', '/run/key.pem', '--cert', '/run/cert.pem', '--port', '0']);
  }
});

test('a system program\'s arm is named by its version, whichever side it is on', () => {
  const { describeArm } = require('../arms');
  const version = 'nginx version: nginx/1.22.1';
  assert.equal(describeArm({ ...armOf('nginx'), vs: true, programVersion: version }), `nginx (${version})`);
  assert.equal(describeArm({ ...armOf('nginx'), side: 'head', programVersion: version }), `nginx (${version})`);
});

test('a --vs command gets {docroot} too', () => {
  const command = serverFor({ side: 'base', kind: 'command', root: ROOT, docroot: '/run/docroot', tls: null,
    command: 'srv --root {docroot}' }, staticScenario('static/1kb'));
  assert.deepEqual(command.argv, ['sh', '-c', 'exec srv --root /run/docroot --port 0']);
});

test('a system program is found on PATH or in /usr/sbin, and is skipped where it is not installed', () => {
  assert.equal(programPath('sh', '/nonexistent:/bin'), '/bin/sh');
  assert.equal(programPath('no-such-program-here', '/bin'), null);
  const missing = { name: 'static/x', servers: { nginx: { program: 'no-such-program-here', command: ['x'] } } };
  assert.match(serverFor(armOf('nginx'), missing).skip, /no-such-program-here is not installed/);
});

test('nginx and h2o take a configuration file with the port, written per start', async (t) => {
  const scratch = tempDir(t);
  for (const impl of ['nginx', 'h2o']) {
    const entry = { ...staticScenario('static/1mb-tls').servers[impl], program: 'sh' };
    const spec = serverFor(armOf(impl, { scratch }), { name: 'static/1mb-tls', servers: { [impl]: entry } });
    assert.equal(spec.fixedPort, true, impl);
    assert.equal(spec.argv[0], programPath('sh'));
    assert.ok(!spec.argv.includes('--port'), impl);
    assert.match(spec.config.text, /\/run\/docroot/);
    assert.match(spec.config.text, /\/run\/cert\.pem/);
    assert.match(spec.config.text, /\{port\}/);
    const first = await withPort(spec);
    const second = await withPort(spec);
    const configFile = first.argv[first.argv.indexOf('-c') + 1];
    assert.equal(path.dirname(path.dirname(configFile)), scratch, impl);
    assert.notEqual(configFile, second.argv[second.argv.indexOf('-c') + 1], 'a folder per start');
    const written = fs.readFileSync(configFile, 'utf8');
    assert.ok(written.includes(String(first.fixedPort)), impl);
    assert.ok(!/\{(port|configDir|docroot|tlsKey|tlsCert)\}/.test(written), written);
  }
});

test('renderConfig fills the port and the file\'s folder', () => {
  assert.equal(renderConfig('listen {port}; pid {configDir}/x.pid; {port}', { port: 8080, configDir: '/c' }),
    'listen 8080; pid /c/x.pid; 8080');
});

test('the nginx configuration: one worker, no access log, sendfile, the open file cache, endless keep-alive', () => {
  const plain = nginxConfig({ user: null });
  for (const directive of ['daemon off;', 'worker_processes 1;', 'access_log off;', 'sendfile on;',
    'open_file_cache max=1000 inactive=20s;', 'open_file_cache_valid 1s;', 'keepalive_requests 1000000000;',
    'listen 127.0.0.1:{port};', 'root {docroot};', 'pid {configDir}/nginx.pid;', 'text/plain txt;']) {
    assert.ok(plain.includes(directive), directive);
  }
  assert.ok(!/ssl|user /.test(plain), plain);
  const tls = nginxConfig({ tls: true, user: 'root' });
  assert.ok(tls.includes('listen 127.0.0.1:{port} ssl;'));
  assert.ok(tls.includes('ssl_certificate {tlsCert};'));
  assert.ok(tls.includes('ssl_certificate_key {tlsKey};'));
  assert.ok(tls.includes('user root;'));
});

test('the h2o configuration: one thread, no access log, file.dir', () => {
  const plain = h2oConfig({ user: null });
  for (const line of ['num-threads: 1', '  port: {port}', '        file.dir: {docroot}']) {
    assert.ok(plain.split('\n').includes(line), line);
  }
  assert.ok(!/access-log|ssl|user:/.test(plain), plain);
  const tls = h2oConfig({ tls: true, user: 'root' });
  assert.ok(tls.includes('    certificate-file: {tlsCert}\n    key-file: {tlsKey}'));
  assert.ok(tls.startsWith('# h2o') && tls.includes('\nuser: root\n'));
});

// The configuration of impl for scenario filled as a run fills it, with a real document root and TLS files when
// it needs them, written to a file; returns its path.
function writtenConfig(t, impl, scenario) {
  const dir = tempDir(t);
  const tls = { key: path.join(dir, 'key.pem'), cert: path.join(dir, 'cert.pem') };
  if (scenario.request.tls) require('../tls').makeTlsFiles(dir);
  const arm = armOf(impl, { docroot: makeDocroot(path.join(dir, 'docroot'), scenario.docroot), tls, scratch: dir });
  const spec = serverFor(arm, scenario);
  if (spec.skip) return null;
  const file = path.join(dir, spec.config.name);
  fs.writeFileSync(file, renderConfig(spec.config.text, { port: 1, configDir: dir }));
  return file;
}

test('nginx -t accepts its configuration, plain, over TLS and with gzip_static', { skip: programPath('nginx') === null &&
  'nginx is not installed' }, (t) => {
  for (const name of ['static/1kb', 'static/1mb-tls', 'static/gzip-50kb']) {
    const file = writtenConfig(t, 'nginx', staticScenario(name));
    const result = spawnSync(programPath('nginx'), ['-t', '-c', file, '-e', 'stderr'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  }
});

test('h2o -t accepts its configuration, plain, over TLS and with file.send-compressed', { skip: programPath('h2o') === null &&
  'h2o is not installed' }, (t) => {
  for (const name of ['static/1kb', 'static/1mb-tls', 'static/gzip-50kb']) {
    const file = writtenConfig(t, 'h2o', staticScenario(name));
    const result = spawnSync(programPath('h2o'), ['-t', '-c', file], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  }
});

test('the JavaScript stacks are pinned, ultimate-express on the runner\'s uWebSockets.js', () => {
  const pinned = (spec) => /@\d+\.\d+\.\d+$/.test(spec);
  assert.ok([...stacks.ULTIMATE_EXPRESS_PACKAGES, ...stacks.FASTIFY_PACKAGES].every(pinned));
  assert.deepEqual(stacks.ULTIMATE_EXPRESS_OVERRIDES, { 'uWebSockets.js': `npm:${UWS_PACKAGE}` });
  assert.equal(path.basename(stacks.FASTIFY_MODULE), 'fastify');
  assert.equal(packageName('@fastify/static@9.3.0'), '@fastify/static');
  assert.equal(packageName('ultimate-express@2.0.17'), 'ultimate-express');
  assert.equal(packageName('ws'), 'ws');
  assert.equal(IMPLEMENTATIONS['express-static'].followsNodeOption, undefined, 'stays on the Node uWS loads on');
});

test('Content-Type is compared by its media type: the charset parameter may differ', () => {
  const scenario = staticScenario('static/1kb');
  const answer = (type, length = '1024') => ({ status: 200, body: Buffer.from('x'),
    headers: { 'content-type': type, 'content-length': length, 'accept-ranges': 'bytes' } });
  assert.equal(HEADER_VIEWS['media-type']('Text/Plain ; charset=UTF-8'), 'text/plain');
  assert.equal(compareAnswers(scenario, [{ copy: 'base#1', answer: answer('text/plain') },
    { copy: 'head#1', answer: answer('text/plain; charset=utf-8') }]), null);
  const differs = compareAnswers(scenario, [{ copy: 'base#1', answer: answer('text/plain') },
    { copy: 'head#1', answer: answer('text/html') }]);
  assert.match(differs, /content-type \(media-type\): text\/html/);
  assert.match(compareAnswers(scenario, [{ copy: 'base#1', answer: answer('text/plain') },
    { copy: 'head#1', answer: answer('text/plain', '1000') }]), /content-length: 1000/);
});

test('a hello file is the hello-world answer, at the size the table gives', () => {
  assert.deepEqual(fileBytes({ kind: 'hello', size: 12 }), Buffer.from('Hello world!'));
  assert.throws(() => fileBytes({ kind: 'hello', size: 13 }), /a hello file is 12 bytes, not 13/);
});
