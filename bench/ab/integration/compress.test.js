'use strict';
// The compress/* scenarios over real sockets: loopwire's C++ server built from this checkout, the addon, and the
// compression middleware on ultimate-express (installed into the runner's cache as `--vs express-compression`
// does) each read the run's JSON document and answer GET /json gzipped, alike once decoded, as the runner's check
// requires; a short lwload run against each counts responses (the middleware's in chunks) without errors; and
// loopwire's gzip level reaches the coder (level 6 makes a smaller answer than the default, 4). A server that does
// not load here is skipped with its reason; loopwire-cpp must answer.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { compareAnswers, requestOnce } = require('../check');
const { docrootFiles, makeDocroot } = require('../docroot');
const { RUNNER_ROOT } = require('../git');
const { loadArgs, runLoad, errorCount } = require('../load');
const { startServer, withPort } = require('../server');
const { ensureExpressCompressionInstalled } = require('../stacks');
const { SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const LOAD_SECONDS = 1;
const COMPRESS_SCENARIOS = SCENARIOS.filter((s) => s.name.startsWith('compress/'));

test('every compress server answers the JSON gzipped, alike once decoded, and lwload counts its answers',
  { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['lwload', 'bench_scenarios'] });
    const lwload = path.join(buildDir, 'bench', 'lwload');
    const problem = ensureExpressCompressionInstalled((message) => t.diagnostic(message));
    if (problem !== null) t.diagnostic(`ultimate-express and compression not installed: ${problem}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-compress-integration-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const docroot = makeDocroot(path.join(dir, 'docroot'), docrootFiles(COMPRESS_SCENARIOS));
    const json = fs.readFileSync(path.join(docroot, '50kb.json'));
    // The coded length of loopwire-cpp's answer, per scenario.
    const cppLength = {};
    for (const scenario of COMPRESS_SCENARIOS) {
      await t.test(scenario.name, async (st) => {
        const answers = [];
        for (const impl of Object.keys(scenario.servers)) {
          const arm = { side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir, docroot, tls: null,
            scratch: path.join(dir, 'servers') };
          const spec = serverFor(arm, scenario);
          if (spec.skip) {
            st.diagnostic(`${impl} skipped: ${spec.skip}`);
            continue;
          }
          const { argv, fixedPort } = await withPort(spec);
          let server;
          try {
            server = await startServer({ argv, cwd: spec.cwd, fixedPort, label: `${scenario.name} ${impl}` });
          } catch (error) {
            if (!error.unavailable) throw error;
            st.diagnostic(`${impl} skipped: ${error.message.trim().split('\n').pop()}`);
            continue;
          }
          try {
            const answer = await requestOnce(scenario, server.port);
            answers.push({ copy: impl, answer });
            assert.equal(answer.status, 200, impl);
            assert.equal(answer.headers['content-encoding'], 'gzip', impl);
            assert.deepEqual(zlib.gunzipSync(answer.body), json, impl);
            st.diagnostic(`${impl}: ${answer.body.length} bytes gzipped`);
            if (impl === 'loopwire-cpp') cppLength[scenario.name] = answer.body.length;
            const result = await runLoad({ lwload, args: loadArgs(scenario, server.port, { seconds: LOAD_SECONDS }),
              expectedSeconds: LOAD_SECONDS });
            assert.ok(result.requests > 0, `${impl}: ${JSON.stringify(result)}`);
            assert.equal(errorCount(result), 0, `${impl}: ${JSON.stringify(result.errors)}`);
            assert.equal(result.non2xx, 0, impl);
            assert.ok(server.isRunning(), impl);
          } finally {
            await server.stop();
          }
        }
        assert.ok(answers.some((a) => a.copy === 'loopwire-cpp'), 'loopwire-cpp answered');
        assert.ok(answers.length >= 2, `only ${answers.map((a) => a.copy).join(', ')} answered`);
        assert.equal(compareAnswers(scenario, answers), null);
      });
    }
    assert.ok(cppLength['compress/json-50kb-level6'] < cppLength['compress/json-50kb'],
      `level 6: ${cppLength['compress/json-50kb-level6']} bytes, default: ${cppLength['compress/json-50kb']}`);
  });
