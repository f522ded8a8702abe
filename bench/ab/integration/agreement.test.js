'use strict';
// Every implementation of every enabled HTTP scenario answers the scenario's request alike (status, body and the
// headers the table names), over real sockets: the C++ servers built from this checkout, node:http, the loopwire
// addon, and uWebSockets.js (the npm package uwebsockets, installed into the runner's cache as `--vs uws` does).
// An implementation that does not load (no registry to install uwebsockets from), or cannot run a scenario at all
// (exit status 3: an SSLApp that throws), is skipped with its reason. TLS scenarios get a key and certificate made
// with openssl, as a run does; their loopwire-cpp server is required once it is built.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { compareAnswers, requestOnce } = require('../check');
const { RUNNER_ROOT } = require('../git');
const { startServer } = require('../server');
const { makeTlsFiles } = require('../tls');
const { ensureUwsInstalled } = require('../uws');
const { IMPLEMENTATIONS, SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;

test('every implementation answers every enabled HTTP scenario alike', { timeout: BUILD_TIMEOUT_MS }, async (t) => {
  const { buildDir } = buildWorkingTree({ targets: IMPLEMENTATIONS['loopwire-cpp'].buildTargets });
  const uwsProblem = ensureUwsInstalled((message) => t.diagnostic(message));
  if (uwsProblem !== null) t.diagnostic(`uwebsockets could not be installed: ${uwsProblem}`);
  const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-agreement-tls-'));
  t.after(() => fs.rmSync(tlsDir, { recursive: true, force: true }));
  const tlsFiles = makeTlsFiles(tlsDir);
  // The static/* and compress/* scenarios, with their own servers and document root, are static.test.js's and
  // compress.test.js's.
  for (const scenario of SCENARIOS.filter((s) => s.enabled && s.request.mode === 'http' && !s.docroot)) {
    await t.test(scenario.name, async (st) => {
      const answers = [];
      for (const impl of Object.keys(scenario.servers)) {
        const arm = { side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir, tls: tlsFiles };
        const spec = serverFor(arm, scenario);
        if (spec.skip) {
          st.diagnostic(`${impl} skipped: ${spec.skip}`);
          continue;
        }
        let server;
        try {
          server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: `${scenario.name} ${impl}` });
        } catch (error) {
          if (!error.unavailable) throw error;
          st.diagnostic(`${impl} skipped: ${error.message.trim().split('\n').pop()}`);
          continue;
        }
        try {
          answers.push({ copy: impl, answer: await requestOnce(scenario, server.port) });
        } finally {
          await server.stop();
        }
      }
      // The C++ server of a TLS scenario waits for the core's SSLApp: required once it is built.
      const cppBuilt = !scenario.request.tls || !serverFor({ side: 'cpp', kind: 'worktree', impl: 'loopwire-cpp',
        root: RUNNER_ROOT, buildDir, tls: tlsFiles }, scenario).skip;
      assert.ok(answers.some((a) => a.copy === 'node-http'), 'node-http answered');
      if (cppBuilt) assert.ok(answers.some((a) => a.copy === 'loopwire-cpp'), 'loopwire-cpp answered');
      assert.equal(answers[0].answer.status, 200);
      assert.equal(compareAnswers(scenario, answers), null);
    });
  }
});
