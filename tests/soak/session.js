'use strict';
// One soak session on one server: warm-up by the verifying clients, a baseline of RSS and fds once they have
// gone, then every client kind side by side for the session's duration, then no clients at all until the
// server's fd count is back at its baseline (or FD_SETTLE_LIMIT_MS has passed). Returns what happened; judging
// it is verdict.js's job.

const { ServerProcess } = require('./serverProcess.js');
const { ResourceSampler, SAMPLE_INTERVAL_MS } = require('./sampler.js');
const { CLIENT_KINDS } = require('./clients/index.js');
const { Tally } = require('./lib/tally.js');
const { SocketRegistry } = require('./lib/socketRegistry.js');
const { onCleanup } = require('./lib/cleanup.js');
const { SERVER_TIMEOUT_MS, SWEEP_INTERVAL_MS } = require('./lib/serverLimits.js');
const { StopSignal, sleep, sleepUnless } = require('./lib/timing.js');
const { MiB } = require('./servers.js');

const WARMUP_MS = 4_000;
// Fds may take a moment to fall once the warm-up clients have gone; the baseline waits for two equal counts.
const BASELINE_WAIT_LIMIT_MS = 5_000;
// How long clients get to finish what they are doing once told to stop (a vanishing reader's last read, an
// 8 MiB stream); one that takes longer is a failure.
const STOP_GRACE_MS = 20_000;
// After the clients have gone, the server closes what they left within its idle timeout plus one sweep.
const FD_SETTLE_LIMIT_MS = SERVER_TIMEOUT_MS + SWEEP_INTERVAL_MS + 2_000;
const FD_TOLERANCE = 2;
// Past this growth the clients that make a server grow stop early, so that a defect cannot exhaust the machine
// (the RSS bound has long failed by then).
const RUNAWAY_GROWTH_BYTES = 1024 * MiB;
const PROGRESS_INTERVAL_MS = 10_000;

/** Starts one worker of client; never rejects (a client that throws is a failure in its tally). */
function startWorker(client, ctx, tally) {
  const worker = { done: false };
  worker.finished = client.run(ctx, tally)
    .catch((error) => tally.failure('client crashed', String(error.stack).split('\n').slice(0, 2).join(' ')))
    .finally(() => { worker.done = true; });
  return worker;
}

/** Runs the given kinds ({ client, workers, tally }) for durationMs (less if the server exits), then stops them. */
async function runClients(kinds, durationMs, ctxBase, serverExited) {
  const stop = new StopSignal();
  const ctx = { ...ctxBase, stop };
  const running = kinds.flatMap(({ client, workers, tally }) =>
    Array.from({ length: workers }, () => ({ tally, worker: startWorker(client, ctx, tally) })));
  await sleepUnless(durationMs, serverExited);
  stop.stop();
  await sleepUnless(STOP_GRACE_MS, Promise.all(running.map(({ worker }) => worker.finished)));
  for (const { tally, worker } of running) {
    if (!worker.done) tally.failure(`did not stop within ${STOP_GRACE_MS / 1000} s of the end of the load`);
  }
}

/** A sample taken once two in a row show the same fd count. */
async function stableSample(sampler) {
  const deadline = Date.now() + BASELINE_WAIT_LIMIT_MS;
  let previous = sampler.sample();
  for (;;) {
    await sleep(SAMPLE_INTERVAL_MS / 2);
    const sample = sampler.sample();
    if (sample.fds === previous.fds || Date.now() > deadline) return sample;
    previous = sample;
  }
}

/** Waits until the fd count is within FD_TOLERANCE of baselineFds, or FD_SETTLE_LIMIT_MS. */
async function settleFds(sampler, baselineFds) {
  const started = Date.now();
  for (;;) {
    const sample = sampler.sample();
    const within = sample.fds !== null && Math.abs(sample.fds - baselineFds) <= FD_TOLERANCE;
    const waitedMs = Date.now() - started;
    if (within || waitedMs >= FD_SETTLE_LIMIT_MS) return { ok: within, fds: sample.fds, waitedMs };
    await sleep(SAMPLE_INTERVAL_MS);
  }
}

function printProgress(name, sampler, tallies) {
  const last = sampler.samples.at(-1);
  if (!last || last.rss === null) return;
  const correct = tallies.filter((tally) => tally.verifying).reduce((sum, tally) => sum + tally.correctCount, 0);
  const failures = tallies.reduce((sum, tally) => sum + tally.failuresByCategory.size, 0);
  console.log(`  [${name}] ${Math.round(last.atMs / 1000)} s ${last.phase}: rss ${(last.rss / MiB).toFixed(1)} MiB, ` +
    `fds ${last.fds}, verified answers ${correct}, failure kinds ${failures}`);
}

/** Runs a session on the server `name` ({ command, args, rssGrowthLimit }); options from options.js. */
async function runSession(name, spec, options) {
  const server = await ServerProcess.start(spec);
  const sockets = new SocketRegistry();
  const forgetSockets = onCleanup(() => sockets.destroyAll());
  let baselineRss = Infinity;
  let runaway = false;
  const sampler = new ResourceSampler(server.pid, (sample) => {
    if (sample.rss > baselineRss + RUNAWAY_GROWTH_BYTES) runaway = true;
  });
  const kinds = CLIENT_KINDS.map(({ client, workers }) => ({ client, workers, tally: new Tally(client.kind, client.verifying) }));
  const tallies = kinds.map(({ tally }) => tally);
  const progress = setInterval(() => printProgress(name, sampler, tallies), PROGRESS_INTERVAL_MS);
  const ctx = { port: server.port, sockets, idleWaveSize: options.idleWaveSize, serverRunaway: () => runaway };
  const result = { name, spec, tallies, samples: sampler.samples, baseline: null, settled: null, exitDuringRun: null };
  try {
    sampler.setPhase('warm-up');
    await runClients(kinds.filter(({ client }) => client.verifying), WARMUP_MS, ctx, server.exited);
    sockets.destroyAll();
    result.baseline = await stableSample(sampler);
    baselineRss = result.baseline.rss;
    sampler.setPhase('load');
    await runClients(kinds, options.durationMs, ctx, server.exited);
    sockets.destroyAll();
    sampler.setPhase('settle');
    if (!server.exit) result.settled = await settleFds(sampler, result.baseline.fds);
  } finally {
    clearInterval(progress);
    sampler.stop();
    sockets.destroyAll();
    forgetSockets();
    result.exitDuringRun = server.exit;
    result.stderr = server.stderr;
    await server.stop();
  }
  return result;
}

module.exports = { runSession, FD_TOLERANCE, FD_SETTLE_LIMIT_MS };
