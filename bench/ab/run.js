#!/usr/bin/env node
'use strict';
// The A/B runner: `npm run bench:ab -- --base <ref> [--head <ref>] [...]` (usage: args.js; method and how to
// read the table: docs/benchmarks.md).
//
// Builds both arms (setup.js), measures every scenario (measure.js), prints the table on stdout and writes
// report.md, report.json and report.html to the output directory. The progress line and notes go to stderr.
// Exit status: 0 when the run completed, 1 when it stopped (a build failed, servers answered differently, a
// server died), 2 for a usage error, 130 when interrupted. Servers and worktrees are cleaned up on every exit.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { IMPLEMENTATIONS, SCENARIOS } = require('../scenarios/scenarios');
const { USAGE, UsageError, parseArguments } = require('./args');
const { html } = require('./html');
const { measureScenario } = require('./measure');
const { Progress } = require('./progress');
const report = require('./report');
const { killAllServers } = require('./server');
const { prepareArms, cleanupWorktrees } = require('./setup');
const { RUNNER_ROOT } = require('./git');

const EXIT_STOPPED = 1;
const EXIT_USAGE = 2;
const EXIT_INTERRUPTED = 130;

function requireTool(name, why) {
  if (spawnSync(name, ['--version'], { stdio: 'ignore' }).error) throw new Error(`${name} is needed ${why}`);
}

function checkMachine(settings) {
  requireTool('taskset', 'to pin servers and load to their CPUs (util-linux)');
  if (settings.instructions) requireTool('valgrind', 'for --instructions');
  const cpus = os.cpus().length;
  for (const [name, cpu] of [['server-cpu', settings.serverCpu], ['load-cpu', settings.loadCpu]]) {
    if (cpu >= cpus) throw new UsageError(`--${name} ${cpu}: this machine has CPUs 0 to ${cpus - 1}`);
  }
}

function machine() {
  return {
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((n) => n.toFixed(2)).join(' '),
    kernel: os.release(),
    node: process.version,
  };
}

function defaultOutDir() {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return path.join(RUNNER_ROOT, 'build-ab', stamp);
}

function writeReports(run, outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  const files = { 'report.md': report.markdown(run), 'report.json': report.json(run), 'report.html': html(run) };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(outDir, name), text);
  return Object.keys(files).map((name) => path.join(outDir, name));
}

async function main(argv) {
  const settings = parseArguments(argv, { scenarios: SCENARIOS, implementations: IMPLEMENTATIONS });
  if (settings.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  checkMachine(settings);
  const progress = new Progress();
  const outDir = path.resolve(settings.out ?? defaultOutDir());
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-ab-'));
  try {
    const { base, head, lwload } = prepareArms(settings, { implementations: IMPLEMENTATIONS, scenarios: SCENARIOS,
      tmpDir, note: (text) => progress.note(text) });
    progress.note(`base: ${base.label}\nhead: ${head.label}`);
    const run = { date: new Date().toISOString(), settings: { ...settings, outDir }, machine: machine(),
      base: { label: base.label, ref: base.ref ?? null, sha: base.sha ?? null, impl: base.impl ?? null },
      head: { label: head.label, ref: head.ref ?? null, sha: head.sha ?? null, impl: head.impl ?? null },
      scenarios: [] };
    const chosen = settings.scenarios.map((name) => SCENARIOS.find((s) => s.name === name));
    const enabled = chosen.filter((s) => s.enabled);
    const ctx = { settings, progress, base, head, lwload, outDir, scenarioCount: enabled.length };
    for (const table of chosen) {
      if (!table.enabled) {
        run.scenarios.push({ name: table.name, status: 'disabled', reason: table.disabled });
        continue;
      }
      const scenario = settings.connections ? { ...table, connections: settings.connections } : table;
      const result = await measureScenario(ctx, scenario, enabled.indexOf(table));
      if (result.status === 'skipped') progress.note(`${result.name}: skipped, ${result.reason}`);
      run.scenarios.push(result);
    }
    process.stdout.write(report.terminal(run));
    const written = writeReports(run, outDir);
    progress.note(`\nwrote ${written.join(', ')}`);
    return 0;
  } finally {
    killAllServers();
    cleanupWorktrees();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

function onSignal(signal) {
  process.stderr.write(`\n${signal}: stopping\n`);
  killAllServers();
  cleanupWorktrees();
  process.exit(EXIT_INTERRUPTED);
}

if (require.main === module) {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllServers);
  main(process.argv.slice(2)).then((status) => {
    process.exitCode = status;
  }, (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exitCode = EXIT_USAGE;
    } else {
      process.stderr.write(`\nbench:ab stopped: ${error.message}\n`);
      process.exitCode = EXIT_STOPPED;
    }
  });
}

module.exports = { main };
