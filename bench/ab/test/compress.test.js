'use strict';
// The compress/* scenarios' pieces: their rows in the table, the JSON document every server reads, the commands of
// the three servers (the gzip level of the level-6 row), the express-compression stack, and the answer check that
// compares bodies decoded. Over real sockets: bench/ab/integration/compress.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const zlib = require('node:zlib');
const { serverFor } = require('../arms');
const { USAGE, parseArguments } = require('../args');
const { compareAnswers } = require('../check');
const { compressibleText, docrootFiles, fileBytes, jsonDocument } = require('../docroot');
const { loadArgs } = require('../load');
const stacks = require('../stacks');
const { IMPLEMENTATIONS, SCENARIOS, COMPRESS_FILES, COMPRESS_COMPARE_HEADERS, GZIP_LEVEL_ARG, MIDDLEWARE_GZIP_LEVEL } =
  require('../../scenarios/scenarios');

const ROOT = path.resolve(__dirname, '../../..');
const COMPRESS_IMPLEMENTATIONS = ['express-compression', 'loopwire-cpp', 'loopwire-js'];
const scenario = (name) => SCENARIOS.find((s) => s.name === name);
const BODY_ARGS = ['--body', '{docroot}/50kb.json'];

// An arm of impl with the run's files, as setup.js makes it.
const armOf = (impl) => ({ side: 'base', kind: 'worktree', impl, root: ROOT, buildDir: '/nonexistent',
  docroot: '/run/docroot', tls: null, scratch: '/run/servers' });

test('the JSON document: one valid array of the text\'s records, exactly 50 KiB, the same every time', () => {
  const json = fileBytes(COMPRESS_FILES['50kb.json']);
  assert.equal(json.length, 50 * 1024);
  assert.deepEqual(jsonDocument(50 * 1024), json);
  const records = JSON.parse(json);
  assert.ok(Array.isArray(records) && records.length > 600, `${records.length} records`);
  assert.deepEqual(records.map((r) => r.id), records.map((_, i) => i + 1));
  // The records of the text kind of the same size, one a line there.
  assert.deepEqual(records[0], JSON.parse(compressibleText(50 * 1024).toString().split('\n')[0]));
  assert.ok(json.toString().endsWith(']\n'));
  // The bytes every run has served (results stay comparable with earlier runs).
  assert.equal(crypto.createHash('sha256').update(json).digest('hex'),
    '62d30534b9dce389e50d1b6c64be87810994bae0fba6c5e3970aeb1ff8806431');
  // Compressible as an API's JSON is: gzip at the middleware's level takes it to well under a fifth.
  assert.ok(zlib.gzipSync(json, { level: MIDDLEWARE_GZIP_LEVEL }).length < json.length / 5);
  // Every size is exact, down to the empty array.
  for (const size of [3, 4, 80, 200, 1000, 4097]) {
    const small = jsonDocument(size);
    assert.equal(small.length, size, `${size}`);
    assert.ok(Array.isArray(JSON.parse(small)), `${size}`);
  }
  assert.equal(jsonDocument(3).toString(), '[]\n');
  assert.throws(() => jsonDocument(2), /at least 3 bytes/);
});

test('the compress rows: GET /json with Accept-Encoding: gzip, the document from the docroot, three servers', () => {
  const rows = SCENARIOS.filter((s) => s.name.startsWith('compress/'));
  assert.deepEqual(rows.map((s) => s.name), ['compress/json-50kb', 'compress/json-50kb-level6']);
  assert.deepEqual(COMPRESS_FILES, { '50kb.json': { kind: 'json', size: 51200 } });
  for (const s of rows) {
    assert.deepEqual(s.request, { mode: 'http', headers: { 'Accept-Encoding': 'gzip' }, tls: false, method: 'GET',
      path: '/json' }, s.name);
    assert.deepEqual(loadArgs(s, 8080, { seconds: 3 }), ['http', '-c', '100', '-d', '3s', '-H',
      'Accept-Encoding: gzip', 'http://127.0.0.1:8080/json'], s.name);
    assert.equal(s.unit, 'request');
    assert.equal(s.connections, 100);
    assert.deepEqual(s.docroot, COMPRESS_FILES, s.name);
    assert.deepEqual(Object.keys(s.servers).sort(), COMPRESS_IMPLEMENTATIONS, s.name);
    // Content-Length is not compared: the middleware streams chunks, and levels make different lengths.
    assert.deepEqual(s.compareHeaders, [{ name: 'content-type', view: 'media-type' }, 'content-encoding', 'vary']);
    assert.equal(s.compareHeaders, COMPRESS_COMPARE_HEADERS);
    assert.equal(s.compareBody, 'decoded');
    assert.equal(s.callgrindSecondsPerRequest, 0.1);
  }
  assert.deepEqual(docrootFiles(rows), { '50kb.json': { kind: 'json', size: 51200, gzip: false } });
});

test('compress/json-50kb: loopwire at its default gzip level; -level6 at the middleware\'s, which keeps its default',
  () => {
    assert.equal(GZIP_LEVEL_ARG, '--gzip-level');
    assert.equal(MIDDLEWARE_GZIP_LEVEL, 6);
    const byDefault = scenario('compress/json-50kb').servers;
    assert.deepEqual(byDefault['loopwire-cpp'].command, ['{build}/bench/scenarios/compress', ...BODY_ARGS]);
    assert.deepEqual(byDefault['loopwire-js'].command, ['{node}', '{root}/bench/scenarios/js/compress/loopwire.js',
      '--module', '{root}', ...BODY_ARGS]);
    assert.equal(byDefault['loopwire-js'].requires, '{root}');
    const level6 = scenario('compress/json-50kb-level6').servers;
    assert.deepEqual(level6['loopwire-cpp'].command, [...byDefault['loopwire-cpp'].command, '--gzip-level', '6']);
    assert.deepEqual(level6['loopwire-js'].command, [...byDefault['loopwire-js'].command, '--gzip-level', '6']);
    for (const servers of [byDefault, level6]) {
      assert.deepEqual(servers['express-compression'], {
        command: ['{node}', '{root}/bench/scenarios/js/compress/express-compression.js', '--module',
          '{expressCompression}', ...BODY_ARGS],
        requires: '{expressCompression}',
      });
    }
  });

test('the express-compression arm: the middleware on ultimate-express from the runner\'s cache, on its Node', () => {
  assert.equal(IMPLEMENTATIONS['express-compression'].followsNodeOption, undefined, 'stays on the Node uWS loads on');
  assert.deepEqual(IMPLEMENTATIONS['express-compression'].buildTargets, []);
  assert.deepEqual(stacks.EXPRESS_COMPRESSION_PACKAGES, ['ultimate-express@2.0.17', 'compression@1.8.2']);
  assert.equal(path.basename(stacks.EXPRESS_COMPRESSION_MODULE), 'ultimate-express');
  assert.notEqual(path.dirname(stacks.EXPRESS_COMPRESSION_MODULE), path.dirname(stacks.ULTIMATE_EXPRESS_MODULE),
    'a folder of its own');
  const spec = serverFor(armOf('express-compression'), scenario('compress/json-50kb'));
  if (!spec.skip) {
    assert.deepEqual(spec.argv, [process.execPath, `${ROOT}/bench/scenarios/js/compress/express-compression.js`,
      '--module', stacks.EXPRESS_COMPRESSION_MODULE, '--body', '/run/docroot/50kb.json', '--port', '0']);
  } else {
    assert.match(spec.skip, /ultimate-express does not load/);
  }
  // The other rows have no such server: the runner skips them, as it does express-static's.
  assert.match(serverFor(armOf('express-compression'), scenario('http/hello-world')).skip,
    /http\/hello-world has no express-compression server/);
  const express = serverFor(armOf('express-static'), scenario('compress/json-50kb'));
  assert.match(express.skip, /compress\/json-50kb has no express-static server/);
});

test('--vs express-compression, with either loopwire as head', () => {
  const tables = { scenarios: SCENARIOS, implementations: IMPLEMENTATIONS };
  const names = 'compress/json-50kb,compress/json-50kb-level6';
  for (const impl of ['loopwire-cpp', 'loopwire-js']) {
    const s = parseArguments(['--vs', 'express-compression', '--impl', impl, '--scenarios', names], tables);
    assert.equal(s.vs, 'express-compression');
    assert.equal(s.impl, impl);
    assert.deepEqual(s.scenarios, names.split(','));
  }
  assert.match(USAGE, /for compress\/\*: express-compression/);
});

test('the compress servers take --body and --gzip-level besides the usual arguments', () => {
  const { parseCompressArgs } = require('../../scenarios/js/compress/args');
  assert.deepEqual(parseCompressArgs(['--module', 'm', '--body', '/d/50kb.json', '--port', '0']),
    { port: 0, modulePath: 'm', bodyFile: '/d/50kb.json', gzipLevel: null });
  assert.equal(parseCompressArgs(['--gzip-level', '6', '--module', 'm', '--body', '/b']).gzipLevel, 6);
});

test('answers coded per request are compared decoded: any level, any framing, the same JSON', () => {
  const s = scenario('compress/json-50kb');
  const json = jsonDocument(51200);
  const answer = (body, headers = {}) => ({ status: 200, body, headers: { 'content-type': 'application/json',
    'content-encoding': 'gzip', vary: 'Accept-Encoding', ...headers } });
  const level4 = answer(zlib.gzipSync(json, { level: 4 }), { 'content-length': '9163' });
  const level6 = answer(zlib.gzipSync(json, { level: 6 }), { 'content-type': 'application/json; charset=utf-8',
    'transfer-encoding': 'chunked' });
  assert.notDeepEqual(level4.body, level6.body);
  assert.equal(compareAnswers(s, [{ copy: 'base#1', answer: level6 }, { copy: 'head#1', answer: level4 }]), null);
  // Plain JSON, without Content-Encoding, decodes to the same bytes: the header stops the run.
  const plain = answer(json, { 'content-encoding': undefined });
  assert.match(compareAnswers(s, [{ copy: 'base#1', answer: level6 }, { copy: 'head#1', answer: plain }]),
    /content-encoding: \(absent\)/);
  // Other JSON, or a missing Vary, stops it too.
  const other = answer(zlib.gzipSync(jsonDocument(51199)));
  assert.match(compareAnswers(s, [{ copy: 'base#1', answer: level6 }, { copy: 'head#1', answer: other }]),
    /head#1:\n(.*\n)* {4}body \(decoded, from \d+ bytes\) "\[\{/);
  assert.match(compareAnswers(s, [{ copy: 'base#1', answer: level6 },
    { copy: 'head#1', answer: answer(level4.body, { vary: undefined }) }]), /vary: \(absent\)/);
});
