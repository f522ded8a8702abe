'use strict';
// Every implementation of every enabled HTTP scenario answers the scenario's request alike (status, body and the
// headers the table names), over real sockets: the C++ servers built from this checkout, node:http, the loopwire
// addon, and uWebSockets.js (the npm package uwebsockets, installed into the runner's cache as `--vs uws` does).
// An implementation that does not load (no registry to install uwebsockets from) is skipped with its reason.
const test = require('node:test');
const assert = require('node:assert/strict');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { compareAnswers, requestOnce } = require('../check');
const { RUNNER_ROOT } = require('../git');
const { startServer } = require('../server');
const { ensureUwsInstalled } = require('../uws');
const { IMPLEMENTATIONS, SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;

test('every implementation answers every enabled HTTP scenario alike', { timeout: BUILD_TIMEOUT_MS }, async (t) => {
  const { buildDir } = buildWorkingTree({ targets: IMPLEMENTATIONS['loopwire-cpp'].buildTargets });
  const uwsProblem = ensureUwsInstalled((message) => t.diagnostic(message));
  if (uwsProblem !== null) t.diagnostic(`uwebsockets could not be installed: ${uwsProblem}`);
  for (const scenario of SCENARIOS.filter((s) => s.enabled && s.request.mode === 'http')) {
    await t.test(scenario.name, async (st) => {
      const answers = [];
      for (const impl of Object.keys(scenario.servers)) {
        const arm = { side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir };
        const spec = serverFor(arm, scenario);
        if (spec.skip) {
          st.diagnostic(`${impl} skipped: ${spec.skip}`);
          continue;
        }
        const server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: `${scenario.name} ${impl}` });
        try {
          answers.push({ copy: impl, answer: await requestOnce(scenario, server.port) });
        } finally {
          await server.stop();
        }
      }
      assert.ok(answers.some((a) => a.copy === 'loopwire-cpp') && answers.some((a) => a.copy === 'node-http'));
      assert.equal(answers[0].answer.status, 200);
      assert.equal(compareAnswers(scenario, answers), null);
    });
  }
});
