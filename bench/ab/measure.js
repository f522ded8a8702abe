'use strict';
// Measuring one scenario: start the four servers (base#1, head#1, base#2, head#2) pinned to the server CPU,
// check that they answer alike, warm each up, then run the rounds in schedule.js's order. Each measurement is
// one lwload run against one server, with the server's CPU time read from /proc just before and just after it.
// With --instructions, each side's server is then run under callgrind (instructions.js).
const path = require('node:path');
const fs = require('node:fs');
const { serverFor } = require('./arms');
const { checkAnswers } = require('./check');
const { countInstructions } = require('./instructions');
const { loadArgs, loadTool, loadSeconds, runLoad, errorCount } = require('./load');
const { cpuSeconds, cpuPressureSeconds } = require('./procstat');
const { COPIES, roundOrder, parseCopy } = require('./schedule');
const { startServer, withPort } = require('./server');
const { median, summarize } = require('./stats');

// lwload using more of its CPU than this may have been the limit rather than the server.
const LOAD_CPU_WARNING = 0.9;
// A measurement is disturbed when some task waited for a CPU during more than this share of it (CPU pressure:
// other processes wanted the server's or lwload's CPU; undisturbed runs on an idle machine stay near 5 %), or
// when it stalled: a response over STALL_LATENCY_US late (1 s is also TCP's SYN retransmission time, the mark of
// a dropped connection attempt) or a run STALL_EXTRA_WALL_S past its duration. A disturbed measurement is run
// again, at most MAX_RETRIES times, and the least disturbed attempt is kept; the report counts them. Retries are
// for passing disturbances: a scenario gets at most RETRY_BUDGET_SHARE of its measurements again, so that a
// machine busy all along costs a quarter more time, not three times as much.
const PRESSURE_LIMIT = 0.1;
const STALL_LATENCY_US = 1e6;
const STALL_EXTRA_WALL_S = 0.5;
const MAX_RETRIES = 2;
const RETRY_BUDGET_SHARE = 0.25;

async function startCopy(server, copy, scenario, cpu) {
  const { argv, fixedPort } = await withPort(server);
  const running = await startServer({ argv, cwd: server.cwd, cpu, fixedPort, label: `${scenario.name} ${copy}` });
  running.load = server.load ?? null;
  return running;
}

// One load run (lwload, or h2load for HTTP/2) of `seconds` against server, with the server's CPU time around it.
async function measureOnce(ctx, scenario, server, seconds) {
  const before = cpuSeconds(server.pid);
  const pressureBefore = cpuPressureSeconds();
  const start = process.hrtime.bigint();
  const result = await runLoad({ lwload: ctx.lwload, tool: loadTool(scenario), cpu: ctx.settings.loadCpu,
    expectedSeconds: loadSeconds(scenario, seconds) + scenario.joinSeconds,
    args: loadArgs(scenario, server.port, { seconds, splitPort: server.splitPort, load: server.load }) });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (!server.isRunning()) throw new Error(`${server.label} exited during the run${server.describeOutput()}`);
  const after = cpuSeconds(server.pid);
  const pressureAfter = cpuPressureSeconds();
  return {
    rps: result.rps,
    requests: result.requests,
    seconds: result.duration_s,
    cpuSeconds: after - before,
    wallSeconds,
    pressure: pressureBefore === null ? null : (pressureAfter - pressureBefore) / wallSeconds,
    errors: errorCount(result),
    non2xx: result.non2xx,
    loadCpuSeconds: result.client_cpu_s,
    // What the server sent (status lines, headers, bodies): per request, the size of its answers.
    bytesRead: result.bytes_read,
    latencyUs: { p50: result.latency_us.p50, p99: result.latency_us.p99, max: result.latency_us.max },
  };
}

// seconds: the run's duration plus the time its connections may take to join (the scenario's joinSeconds).
function stalled(m, seconds) {
  return m.latencyUs.max >= STALL_LATENCY_US || m.wallSeconds > seconds + STALL_EXTRA_WALL_S;
}

// How disturbed a measurement was, for choosing among attempts: stalls first, then CPU pressure.
function disturbance(m, seconds) {
  return (stalled(m, seconds) ? 1 : 0) + (m.pressure ?? 0);
}

// measureOnce(), again while disturbed and budget.retries lasts; keeps the least disturbed attempt, with the
// others' figures in `retried` for the report.
async function measureSteady(ctx, scenario, server, seconds, budget) {
  const attempts = [];
  const expected = loadSeconds(scenario, seconds) + scenario.joinSeconds;
  for (;;) {
    const m = await measureOnce(ctx, scenario, server, seconds);
    attempts.push(m);
    const disturbed = stalled(m, expected) || (m.pressure !== null && m.pressure > PRESSURE_LIMIT);
    if (!disturbed || attempts.length > MAX_RETRIES || budget.retries === 0) break;
    budget.retries--;
  }
  const kept = attempts.reduce((best, m) => (disturbance(m, expected) < disturbance(best, expected) ? m : best));
  const retried = attempts.filter((m) => m !== kept).map((m) => ({ rps: m.rps, pressure: m.pressure,
    stalled: stalled(m, expected) }));
  return { ...kept, stalled: stalled(kept, expected), retried };
}

const isDisturbed = (m) => m.stalled || (m.pressure ?? 0) > PRESSURE_LIMIT;

// tool: the load generator (load.js loadTool).
function warningsOf(rounds, tool) {
  const warnings = [];
  const all = rounds.flatMap((round) => Object.values(round.copies));
  const sum = (field) => all.reduce((total, m) => total + m[field], 0);
  if (sum('errors') > 0) warnings.push(`${tool} counted ${sum('errors')} errors (see report.json)`);
  if (sum('non2xx') > 0) warnings.push(`${sum('non2xx')} responses were not 2xx`);
  const retried = all.filter((m) => m.retried.length > 0).length;
  const disturbed = all.filter(isDisturbed).length;
  if (retried > 0 || disturbed > 0) {
    warnings.push(`${disturbed} of ${all.length} measurements were disturbed (other processes wanted the CPUs, or ` +
      `a stall)${retried > 0 ? `; ${retried} ${retried === 1 ? 'was' : 'were'} run again to avoid it` : ''}`);
  }
  const pressures = all.map((m) => m.pressure).filter((p) => p !== null);
  if (pressures.length > 0 && median(pressures) > PRESSURE_LIMIT) {
    warnings.push(`tasks waited for a CPU ${Math.round(median(pressures) * 100)} % of the time (median): other ` +
      'processes shared the CPUs, so req/s reflects the machine as much as the servers');
  }
  const busiest = Math.max(...all.map((m) => m.loadCpuSeconds / m.wallSeconds));
  if (busiest > LOAD_CPU_WARNING) {
    warnings.push(`${tool} used up to ${Math.round(busiest * 100)} % of its CPU: it may have set the pace`);
  }
  return warnings;
}

async function measureInstructions(ctx, scenario, servers) {
  const outDir = path.join(ctx.outDir, 'callgrind');
  fs.mkdirSync(outDir, { recursive: true });
  const counts = {};
  for (const side of ['base', 'head']) {
    ctx.progress.note(`${scenario.name}: counting instructions of ${side} under callgrind`);
    counts[side] = await countInstructions({
      server: servers[side], scenario, lwload: ctx.lwload, outDir,
      cpus: { server: ctx.settings.serverCpu, load: ctx.settings.loadCpu },
      label: `${scenario.name.replace('/', '-')}.${side}`,
      requests: ctx.settings.instructionsRequests,
      connections: ctx.settings.instructionsConnections,
    });
  }
  return counts;
}

// Returns the scenario's entry of the report: { name, status, ... }.
async function measureScenario(ctx, scenario, scenarioIndex) {
  const servers = { base: serverFor(ctx.base, scenario), head: serverFor(ctx.head, scenario) };
  const skips = Object.values(servers).filter((s) => s.skip).map((s) => s.skip);
  if (skips.length > 0) return { name: scenario.name, status: 'skipped', reason: skips.join('; ') };

  const { settings, progress } = ctx;
  const started = {};
  const rounds = [];
  let unavailable = null;
  try {
    for (const copy of COPIES) {
      try {
        started[copy] = await startCopy(servers[parseCopy(copy).side], copy, scenario, settings.serverCpu);
      } catch (error) {
        // A server that cannot run here at all (an SSLApp that throws) skips the scenario; any other failure to
        // start stops the run.
        if (!error.unavailable) throw error;
        unavailable = `${parseCopy(copy).side}: ${error.message.trim().split('\n').slice(-1)[0]}`;
        break;
      }
    }
    if (unavailable !== null) return { name: scenario.name, status: 'skipped', reason: unavailable };
    await checkAnswers(scenario, COPIES.map((copy) => ({ copy, port: started[copy].port,
      splitPort: started[copy].splitPort, load: started[copy].load })), { lwload: ctx.lwload });
    const step = (round, copy, position) => progress.step({ scenarioIndex, scenarioCount: ctx.scenarioCount,
      scenario: scenario.name, round, rounds: settings.rounds, copy, position });
    if (settings.warmup > 0) {
      for (const [position, copy] of COPIES.entries()) {
        step(null, copy, position);
        await measureOnce(ctx, scenario, started[copy], settings.warmup);
      }
    }
    const budget = { retries: Math.ceil(RETRY_BUDGET_SHARE * settings.rounds * COPIES.length) };
    for (let round = 0; round < settings.rounds; round++) {
      const order = roundOrder(round);
      const entry = { order, copies: {} };
      for (const [position, copy] of order.entries()) {
        step(round, copy, position);
        entry.copies[copy] = await measureSteady(ctx, scenario, started[copy], settings.duration, budget);
      }
      rounds.push(entry);
    }
  } finally {
    progress.clear();
    await Promise.all(Object.values(started).map((server) => server.stop()));
  }

  const summary = summarize(rounds.map(({ copies }) => ({
    base: [copies['base#1'], copies['base#2']],
    head: [copies['head#1'], copies['head#2']],
  })));
  const result = { name: scenario.name, status: 'measured', connections: scenario.connections,
    pipeline: scenario.pipeline, unit: scenario.unit, summary, rounds,
    warnings: warningsOf(rounds, loadTool(scenario)) };
  if (settings.instructions) {
    try {
      result.instructions = await measureInstructions(ctx, scenario, servers);
    } catch (error) {
      result.instructions = { error: error.message.split('\n')[0] };
      progress.note(`${scenario.name}: instruction count failed: ${error.message}`);
    }
  }
  return result;
}

module.exports = { measureScenario };
