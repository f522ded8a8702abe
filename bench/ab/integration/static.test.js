'use strict';
// The static/* scenarios over real sockets: every server (loopwire's C++ server built from this checkout and the
// addon, nginx and h2o from the system with the configuration files the runner writes, express.static and
// @fastify/static installed into the runner's cache) serves the run's document root and answers alike, the
// answers being the files themselves (the .gz sibling for a request that accepts gzip); and a short lwload run against nginx, which cannot print its port, counts
// requests without errors and the CPU time of its worker, a child of the process the runner started. A server that
// is not installed, or does not load here, is skipped with its reason; loopwire-cpp and at least one other must
// answer.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { compareAnswers, requestOnce } = require('../check');
const { GZIP_SUFFIX, docrootFiles, makeDocroot } = require('../docroot');
const { RUNNER_ROOT } = require('../git');
const { loadArgs, runLoad, errorCount } = require('../load');
const { cpuSeconds } = require('../procstat');
const { startServer, withPort } = require('../server');
const { ensureFastifyInstalled, ensureUltimateExpressInstalled } = require('../stacks');
const { makeTlsFiles } = require('../tls');
const { SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const LOAD_SECONDS = 1;
// The compress/* scenarios read the document root too, but answer from a handler: compress.test.js's.
const STATIC_SCENARIOS = SCENARIOS.filter((s) => s.docroot && s.name.startsWith('static/'));

// The run's files, as setup.js makes them: { tls, docroot, scratch } in a temporary folder removed after the test.
function runFiles(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-static-integration-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { tls: makeTlsFiles(path.join(dir, 'tls')), docroot: makeDocroot(path.join(dir, 'docroot'),
    docrootFiles(STATIC_SCENARIOS)), scratch: path.join(dir, 'servers') };
}

// Starts impl's server for scenario as measure.js does; resolves to the Server, or to null (with a diagnostic)
// when it is skipped here.
async function start(t, impl, scenario, { buildDir, files }) {
  const arm = { side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir, ...files };
  const spec = serverFor(arm, scenario);
  if (spec.skip) {
    t.diagnostic(`${impl} skipped: ${spec.skip}`);
    return null;
  }
  const { argv, fixedPort } = await withPort(spec);
  try {
    return await startServer({ argv, cwd: spec.cwd, fixedPort, label: `${scenario.name} ${impl}` });
  } catch (error) {
    if (!error.unavailable) throw error;
    t.diagnostic(`${impl} skipped: ${error.message.trim().split('\n').pop()}`);
    return null;
  }
}

test('every static-file server answers every static scenario alike, with the file', { timeout: BUILD_TIMEOUT_MS },
  async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['bench_scenarios'] });
    for (const ensure of [ensureUltimateExpressInstalled, ensureFastifyInstalled]) {
      const problem = ensure((message) => t.diagnostic(message));
      if (problem !== null) t.diagnostic(`not installed: ${problem}`);
    }
    const files = runFiles(t);
    for (const scenario of STATIC_SCENARIOS) {
      await t.test(scenario.name, async (st) => {
        const answers = [];
        for (const impl of Object.keys(scenario.servers)) {
          const server = await start(st, impl, scenario, { buildDir, files });
          if (server === null) continue;
          try {
            answers.push({ copy: impl, answer: await requestOnce(scenario, server.port) });
          } finally {
            await server.stop();
          }
        }
        assert.ok(answers.some((a) => a.copy === 'loopwire-cpp'), 'loopwire-cpp answered');
        assert.ok(answers.length >= 2, `only ${answers.map((a) => a.copy).join(', ')} answered`);
        assert.equal(answers[0].answer.status, 200);
        const gzip = scenario.request.headers['Accept-Encoding'] === 'gzip';
        assert.equal(answers[0].answer.headers['content-encoding'], gzip ? 'gzip' : undefined);
        assert.deepEqual(answers[0].answer.body,
          fs.readFileSync(path.join(files.docroot, scenario.request.path + (gzip ? GZIP_SUFFIX : ''))));
        assert.equal(compareAnswers(scenario, answers), null);
      });
    }
  });

test('lwload against nginx on the port the runner gave it; its worker\'s CPU time is counted',
  { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['lwload'] });
    const lwload = path.join(buildDir, 'bench', 'lwload');
    const scenario = SCENARIOS.find((s) => s.name === 'static/1mb');
    const server = await start(t, 'nginx', scenario, { buildDir, files: runFiles(t) });
    if (server === null) {
      t.skip('nginx is not installed');
      return;
    }
    t.after(() => server.stop());
    const before = cpuSeconds(server.pid);
    const result = await runLoad({ lwload, args: loadArgs(scenario, server.port, { seconds: LOAD_SECONDS }),
      expectedSeconds: LOAD_SECONDS });
    const used = cpuSeconds(server.pid) - before;
    assert.ok(result.requests > 0, JSON.stringify(result));
    assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
    assert.equal(result.non2xx, 0);
    assert.ok(result.bytes_read >= result.requests * 1048576, `${result.bytes_read} bytes`);
    // The master only waits; the time is the worker's, which /proc shows as the master's child.
    assert.ok(used > 0.05, `${used} s of CPU for ${result.requests} MiB`);
    assert.ok(server.isRunning());
  });
