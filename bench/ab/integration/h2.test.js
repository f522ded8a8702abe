'use strict';
// The HTTP/2 scenarios over real sockets: every server of every h2/* (TLS, ALPN) and h2c/* (prior knowledge) row
// (loopwire's C++ servers built from this checkout and the addon given --http2, node:http2's compatibility API, and
// for the hello rows h2o and nginx from the system serving the run's hello.txt) answers the check's HTTP/2 request
// alike, and a short h2load run against each counts every request answered, without errors, with h2load's own CPU
// time read. A system server that is not installed is skipped with its reason; the others must answer.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { compareAnswers, requestOnce } = require('../check');
const { docrootFiles, makeDocroot } = require('../docroot');
const { RUNNER_ROOT } = require('../git');
const { loadArgs, loadTool, runLoad, errorCount } = require('../load');
const { startServer, withPort } = require('../server');
const { makeTlsFiles } = require('../tls');
const { SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const H2_SCENARIOS = SCENARIOS.filter((s) => s.request.mode === 'h2');
// What each h2load run asks for: enough to cross many reads, on several connections.
const REQUESTS = 2000;
const CONNECTIONS = 10;
const REQUESTS_SECONDS = 30;
// The servers that must answer wherever the suite runs; h2o and nginx only where they are installed.
const REQUIRED = ['loopwire-cpp', 'loopwire-js', 'node-http2'];

// The run's files, as setup.js makes them: { tls, docroot, scratch } in a temporary folder removed after the test.
function runFiles(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-h2-integration-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { tls: makeTlsFiles(path.join(dir, 'tls')), docroot: makeDocroot(path.join(dir, 'docroot'),
    docrootFiles(H2_SCENARIOS)), scratch: path.join(dir, 'servers') };
}

test('every HTTP/2 server answers its scenario alike and serves an h2load run without errors',
  { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['bench_scenarios'] });
    const files = runFiles(t);
    for (const scenario of H2_SCENARIOS) {
      await t.test(scenario.name, async (st) => {
        assert.equal(loadTool(scenario), 'h2load');
        const answers = [];
        for (const impl of Object.keys(scenario.servers)) {
          const arm = { side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir, ...files };
          const spec = serverFor(arm, scenario);
          if (spec.skip) {
            assert.ok(!REQUIRED.includes(impl), spec.skip);
            st.diagnostic(`${impl} skipped: ${spec.skip}`);
            continue;
          }
          const { argv, fixedPort } = await withPort(spec);
          const server = await startServer({ argv, cwd: spec.cwd, fixedPort, label: `${scenario.name} ${impl}` });
          try {
            answers.push({ copy: impl, answer: await requestOnce(scenario, server.port) });
            const result = await runLoad({ tool: 'h2load', expectedSeconds: REQUESTS_SECONDS,
              args: loadArgs(scenario, server.port, { requests: REQUESTS, connections: CONNECTIONS }) });
            assert.equal(result.requests, REQUESTS, `${impl}: ${JSON.stringify(result)}`);
            assert.equal(errorCount(result), 0, `${impl}: ${JSON.stringify(result.errors)}`);
            assert.equal(result.non2xx, 0, impl);
            assert.ok(result.client_cpu_s !== null && result.client_cpu_s >= 0, impl);
            assert.ok(result.bytes_read > REQUESTS * answers.at(-1).answer.body.length, impl);
          } finally {
            await server.stop();
          }
        }
        assert.deepEqual(REQUIRED.filter((impl) => !answers.some((a) => a.copy === impl)), [], 'required servers');
        assert.equal(answers[0].answer.status, 200);
        if (scenario.docroot) assert.equal(answers[0].answer.body.toString(), 'Hello world!');
        assert.equal(compareAnswers(scenario, answers), null);
      });
    }
  });
