'use strict';
// lwload fanout against the C++ ws/fanout server built from this checkout, over real sockets: the check the runner
// makes before measuring (four subscribers, one window of messages, every one delivered in order), then a second
// with the scenario's 1,000 subscribers, which must count deliveries and no error. Run with the other
// integration tests, `node --test bench/ab/integration/`; it builds lwload and the scenario servers (cached).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { checkAnswers } = require('../check');
const { RUNNER_ROOT } = require('../git');
const { loadArgs, runLoad, errorCount } = require('../load');
const { startServer } = require('../server');
const { SCENARIOS } = require('../../scenarios/scenarios');
const { ensureSocketIoInstalled } = require('../socketio');
const { ensureUwsInstalled } = require('../uws');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const SECONDS = 1;

test('lwload fanout counts deliveries from the C++ fan-out server, without errors', { timeout: BUILD_TIMEOUT_MS },
  async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['lwload', 'bench_scenarios'] });
    const lwload = path.join(buildDir, 'bench', 'lwload');
    const scenario = SCENARIOS.find((s) => s.name === 'ws/fanout');
    const arm = { side: 'head', kind: 'worktree', impl: 'loopwire-cpp', root: RUNNER_ROOT, buildDir };
    const spec = serverFor(arm, scenario);
    assert.equal(spec.skip, undefined, spec.skip);
    const server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: 'ws/fanout loopwire-cpp' });
    t.after(() => server.stop());

    await checkAnswers(scenario, [{ copy: 'head#1', port: server.port }], { lwload });

    const result = await runLoad({ lwload, args: loadArgs(scenario, server.port, { seconds: SECONDS }),
      expectedSeconds: SECONDS + scenario.joinSeconds });
    assert.equal(result.mode, 'fanout');
    assert.equal(result.connections, 1000);
    assert.ok(result.requests > 0, JSON.stringify(result));
    assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
    assert.equal(result.reconnects, 0);
    assert.ok(result.duration_s >= SECONDS * 0.99 && result.duration_s <= SECONDS * 1.01, `${result.duration_s}`);
    assert.ok(server.isRunning());
  });

// Loads the cluster scenario `name` served by `impl` (started as the runner starts it) for SECONDS with lwload
// fanout --split-url, after the runner's answer check, and checks what a clean run gives: every subscriber joined,
// deliveries counted, no error, no reconnection, the server still up. Returns lwload's result, or null when the
// server exited as unable to run here (status 3), after skipping the test with its reason.
async function loadCluster(t, name, impl) {
  const { buildDir } = buildWorkingTree({ targets: ['lwload'] });
  const lwload = path.join(buildDir, 'bench', 'lwload');
  const scenario = SCENARIOS.find((s) => s.name === name);
  const arm = impl === 'loopwire-js' ? { side: 'head', kind: 'worktree', impl, root: RUNNER_ROOT, buildDir }
    : { side: 'base', kind: 'impl', impl, root: RUNNER_ROOT, buildDir };
  const spec = serverFor(arm, scenario);
  assert.equal(spec.skip, undefined, spec.skip);
  let server;
  try {
    server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: `${name} ${impl}` });
  } catch (error) {
    if (!error.unavailable) throw error;
    t.skip(`${impl} does not run here: ${error.message.trim().split('\n').pop()}`);
    return null;
  }
  t.after(() => server.stop());
  assert.ok(server.splitPort > 0 && server.splitPort !== server.port);
  const copy = `${arm.side}#1`;
  await checkAnswers(scenario, [{ copy, port: server.port, splitPort: server.splitPort, load: spec.load }], { lwload });
  const result = await runLoad({ lwload,
    args: loadArgs(scenario, server.port, { seconds: SECONDS, splitPort: server.splitPort, load: spec.load }),
    expectedSeconds: SECONDS + scenario.joinSeconds });
  assert.equal(result.connections, 1000);
  assert.ok(result.requests > 0, JSON.stringify(result));
  assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
  assert.equal(result.reconnects, 0);
  assert.ok(server.isRunning());
  return result;
}

// cluster/fanout on loopwire-js: two nodes linked by app.connectPubSub through a real redis-server, the publisher
// and half the subscribers on one, the other half on the other: every message crosses Redis to reach them all.
// cluster/fanout-history: the same on a topic with history, every delivery stamped and its stamp checked.
for (const name of ['cluster/fanout', 'cluster/fanout-history']) {
  test(`lwload fanout --split-url counts deliveries across a two-node loopwire cluster, without errors (${name})`,
    { timeout: BUILD_TIMEOUT_MS }, async (t) => {
      await loadCluster(t, name, 'loopwire-js');
    });
}

// cluster/fanout on socket.io with its Redis adapter, the runner's third arm: lwload speaks engine.io and socket.io
// (--socket-io) on socket.io's path, and every event the publisher emits reaches the room on both nodes.
test('lwload fanout --socket-io counts deliveries across a two-node socket.io cluster, without errors',
  { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const problem = ensureSocketIoInstalled((message) => t.diagnostic(message));
    if (problem !== null) {
      t.skip(`socket.io could not be installed from npm: ${problem}`);
      return;
    }
    const spec = serverFor({ side: 'base', kind: 'impl', impl: 'socketio', root: RUNNER_ROOT },
      SCENARIOS.find((s) => s.name === 'cluster/fanout'));
    assert.equal(spec.load.socketIo, true);
    const result = await loadCluster(t, 'cluster/fanout', 'socketio');
    assert.equal(result.message_type, 'text');
  });

// cluster/fanout on uWebSockets.js with the usual JavaScript glue (ioredis subscribers calling app.publish), the
// runner's yardstick arm: every message the publisher sends on one node reaches the subscribers of both. Skipped
// with its reason where uWebSockets.js's binaries cannot be installed or do not load on this Node (they need glibc
// 2.38 on Node 22 and 24).
test('lwload fanout --split-url counts deliveries across a two-node uWebSockets.js cluster with its glue, without errors',
  { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const problem = ensureUwsInstalled((message) => t.diagnostic(message));
    if (problem !== null) {
      t.skip(`uwebsockets and ioredis could not be installed from npm: ${problem}`);
      return;
    }
    await loadCluster(t, 'cluster/fanout', 'uws');
  });
