'use strict';
// A short A/A run of the real runner on two scenarios: the working tree against itself. It builds lwload and the
// C++ scenario servers (cached after the first time), measures, and must mark no row, since both sides are the
// same build. Slow (about a minute after the build): run apart from the unit tests,
// `node --test bench/ab/integration/`.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const RUNNER = path.resolve(__dirname, '../run.js');
const SCENARIOS = ['http/hello-world', 'http/json-post-1kb'];
// Five rounds, the default: with three, the interval of a median is the rounds' range, and an A/A figure is
// marked about 1 time in 80 (bench/ab/test/stats.test.js); with five, about 1 in 300.
const ROUNDS = 5;
const HEADER = '| Scenario | Base req/s | Head req/s | Head / base | Interval | Noise | Busy | CPU per request | ' +
  'CPU interval | CPU noise |';
// A first build of the core with no ccache takes minutes on two cores.
const RUN_TIMEOUT_MS = 15 * 60 * 1000;

function runRunner(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('an A/A run of two scenarios completes and marks nothing', { timeout: RUN_TIMEOUT_MS + 10000 }, async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-ab-aa-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const { code, stdout, stderr } = await runRunner(['--base', 'WORKTREE', '--head', 'WORKTREE',
    '--rounds', String(ROUNDS), '--duration', '1', '--warmup', '0.5', '--scenarios', SCENARIOS.join(','),
    '--out', out]);
  assert.equal(code, 0, `runner failed:\n${stderr.slice(-3000)}`);

  const run = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  assert.deepEqual(run.scenarios.map((s) => [s.name, s.status]), SCENARIOS.map((name) => [name, 'measured']));
  for (const scenario of run.scenarios) {
    const s = scenario.summary;
    assert.equal(s.ratios.length, ROUNDS);
    assert.equal(s.mark, null, `${scenario.name} req/s marked ${s.mark} in an A/A run: ${JSON.stringify(s.ratios)}`);
    assert.equal(s.cpu.mark, null, `${scenario.name} CPU marked ${s.cpu.mark} in an A/A run: ` +
      JSON.stringify(s.cpu.ratios));
    assert.equal(s.verdict, null);
    assert.ok(s.base.rps > 0 && s.head.rps > 0);
    assert.ok(s.base.busy > 0 && s.base.busy <= 1.05, `busy ${s.base.busy}`);
    assert.ok(s.base.cpuPerRequestUs > 0);
    for (const round of scenario.rounds) {
      assert.deepEqual(Object.keys(round.copies).sort(), ['base#1', 'base#2', 'head#1', 'head#2']);
      for (const m of Object.values(round.copies)) assert.equal(m.errors, 0);
    }
  }

  assert.ok(stdout.split('\n').includes(HEADER), stdout);
  assert.doesNotMatch(stdout, /\*\*(faster|slower)\*\*/);
  assert.match(stderr, new RegExp(`round ${ROUNDS}/${ROUNDS} {2}(base|head)#[12]`));
  assert.equal((fs.readFileSync(path.join(out, 'report.html'), 'utf8').match(/<svg /g) ?? []).length, 4);
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /^\| http\/hello-world \|/m);
});
