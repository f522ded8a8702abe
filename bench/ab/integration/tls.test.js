'use strict';
// lwload over real TLS against node:https (the https/hello-world scenario server, with a key and self-signed
// certificate made by openssl as a run makes them) and against node:https with the `ws` package: keep-alive https
// counts responses without errors; --reconnect makes one handshake per request and, with --tls-resume on (the
// default), resumes the session of every connection after its first, which the server confirms; with
// --tls-resume off, none; wss:// echoes are verified against every server of wss/echo-20b (uws where installed). Run with the other integration tests,
// `node --test bench/ab/integration/`; it builds lwload (cached).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serverFor } = require('../arms');
const { buildWorkingTree } = require('../build');
const { RUNNER_ROOT } = require('../git');
const { runLoad, errorCount } = require('../load');
const { startServer } = require('../server');
const { makeTlsFiles } = require('../tls');
const { IMPLEMENTATIONS, SCENARIOS } = require('../../scenarios/scenarios');

const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
// Short runs: enough for thousands of requests and hundreds of handshakes.
const SECONDS = 2;
const KEEP_ALIVE_CONNECTIONS = 10;
const RECONNECT_CONNECTIONS = 4;

test('lwload loads node:https over TLS, with and without session resumption', { timeout: BUILD_TIMEOUT_MS },
  async (t) => {
    const { buildDir } = buildWorkingTree({ targets: ['lwload'] });
    const lwload = path.join(buildDir, 'bench', 'lwload');
    const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-tls-integration-'));
    t.after(() => fs.rmSync(tlsDir, { recursive: true, force: true }));
    const files = makeTlsFiles(tlsDir);
    const scenario = SCENARIOS.find((s) => s.name === 'https/hello-world');
    const spec = serverFor({ side: 'head', kind: 'worktree', impl: 'node-http', root: RUNNER_ROOT, buildDir,
      tls: files }, scenario);
    assert.equal(spec.skip, undefined, spec.skip);
    const server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: 'https/hello-world node-http' });
    t.after(() => server.stop());
    const url = `https://127.0.0.1:${server.port}/`;
    const load = (args) => runLoad({ lwload, args: ['http', '-d', `${SECONDS}s`, ...args, url],
      expectedSeconds: SECONDS });

    await t.test('keep-alive https', async () => {
      const result = await load(['-c', String(KEEP_ALIVE_CONNECTIONS), '--cacert', files.cert]);
      assert.ok(result.requests > 0, JSON.stringify(result));
      assert.equal(result.non2xx, 0);
      assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
      assert.equal(result.reconnects, 0);
      assert.equal(result.tls.handshakes, KEEP_ALIVE_CONNECTIONS);
    });

    await t.test('one connection per request, sessions resumed', async () => {
      const result = await load(['-c', String(RECONNECT_CONNECTIONS), '--reconnect', '--tls-resume', 'on']);
      assert.equal(result.reconnect, true);
      assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
      assert.ok(result.requests > 0, JSON.stringify(result));
      assert.ok(result.tls.handshakes >= result.requests, JSON.stringify(result.tls));
      // Every handshake but each connection's first resumed a session.
      assert.equal(result.tls.resumed, result.tls.handshakes - RECONNECT_CONNECTIONS, JSON.stringify(result.tls));
      assert.ok(result.tls.handshakes_per_s > 0);
    });

    await t.test('one connection per request, full handshakes', async () => {
      const result = await load(['-c', String(RECONNECT_CONNECTIONS), '--reconnect', '--tls-resume', 'off']);
      assert.equal(errorCount(result), 0, JSON.stringify(result.errors));
      assert.ok(result.requests > 0, JSON.stringify(result));
      assert.ok(result.tls.handshakes >= result.requests, JSON.stringify(result.tls));
      assert.equal(result.tls.resumed, 0);
    });
    assert.ok(server.isRunning());
  });

test('lwload ws echoes over wss:// against every implementation of wss/echo-20b', { timeout: BUILD_TIMEOUT_MS },
  async (t) => {
    const scenario = SCENARIOS.find((s) => s.name === 'wss/echo-20b');
    const { buildDir } = buildWorkingTree({ targets: ['lwload', ...IMPLEMENTATIONS['loopwire-cpp'].buildTargets] });
    const lwload = path.join(buildDir, 'bench', 'lwload');
    const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-wss-integration-'));
    t.after(() => fs.rmSync(tlsDir, { recursive: true, force: true }));
    const files = makeTlsFiles(tlsDir);
    const echoed = [];
    for (const impl of Object.keys(scenario.servers)) {
      const spec = serverFor({ side: impl, kind: 'worktree', impl, root: RUNNER_ROOT, buildDir, tls: files }, scenario);
      if (spec.skip) {
        t.diagnostic(`${impl} skipped: ${spec.skip}`);
        continue;
      }
      let server;
      try {
        server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: `wss/echo-20b ${impl}` });
      } catch (error) {
        if (!error.unavailable) throw error;
        t.diagnostic(`${impl} skipped: ${error.message.trim().split('\n').pop()}`);
        continue;
      }
      try {
        const result = await runLoad({ lwload, expectedSeconds: 1,
          args: ['ws', '-c', '4', '-d', '1s', '-s', '4k', `wss://localhost:${server.port}/`] });
        assert.ok(result.requests > 0, `${impl}: ${JSON.stringify(result)}`);
        assert.equal(errorCount(result), 0, `${impl}: ${JSON.stringify(result.errors)}`);
        assert.equal(result.tls.handshakes, 4, impl);
        echoed.push(impl);
      } finally {
        await server.stop();
      }
    }
    for (const impl of ['node-http', 'loopwire-cpp', 'loopwire-js']) assert.ok(echoed.includes(impl), `${impl} echoed`);
  });
