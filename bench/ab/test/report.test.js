'use strict';
// The Markdown, terminal, JSON and HTML reports, and the SVG chart.
const test = require('node:test');
const assert = require('node:assert/strict');
const { ratioChart, yDomain, yTicks, escapeXml } = require('../chart');
const { html } = require('../html');
const report = require('../report');
const { summarize } = require('../stats');

const HEADER = '| Scenario | Base req/s | Head req/s | Head / base | Interval | Noise | Busy | CPU per request | ' +
  'CPU interval | CPU noise |';
const m = (rps, cpuSeconds = 0.95) => ({ rps, requests: rps, cpuSeconds, wallSeconds: 1 });
const steady = (rps) => [0, 1, 2].map(() => ({ base: [m(rps), m(rps)], head: [m(rps), m(rps)] }));

function sampleRun({ instructions = false } = {}) {
  const slower = summarize([
    { base: [m(50000), m(50500)], head: [m(40000, 0.96), m(40400, 0.96)] },
    { base: [m(49000), m(49500)], head: [m(39000, 0.96), m(39500, 0.96)] },
    { base: [m(51000), m(50000)], head: [m(41000, 0.96), m(40000, 0.96)] },
  ]);
  const scenarios = [
    { name: 'http/hello-world', status: 'measured', summary: slower, warnings: [] },
    { name: 'http/cached', status: 'measured', summary: summarize(steady(30000)), warnings: ['1 stall'] },
    { name: 'http/headers', status: 'skipped', reason: 'base: uwebsockets does not load' },
    { name: 'ws/echo-20b', status: 'disabled', reason: 'loopwire has no WebSocket yet' },
  ];
  if (instructions) {
    scenarios[0].instructions = { base: { perRequest: 40000 }, head: { perRequest: 41200 } };
    scenarios[1].instructions = { error: 'valgrind crashed' };
  }
  return {
    date: '2026-01-01T00:00:00.000Z',
    settings: { rounds: 3, duration: 2, warmup: 1, serverCpu: 0, loadCpu: 1, instructions },
    machine: { cpuModel: 'Test CPU', cpus: 2, loadAverage: '0.10 0.20 0.30' },
    base: { label: 'loopwire-cpp @ abc <base>' },
    head: { label: 'loopwire-cpp @ working tree' },
    scenarios,
  };
}

test('the Markdown table has the issue\'s columns, one row per measured scenario', () => {
  const text = report.markdown(sampleRun());
  const lines = text.split('\n');
  assert.ok(lines.includes(HEADER), text);
  const rows = lines.filter((line) => line.startsWith('| http/'));
  assert.equal(rows.length, 2);
  // Three rounds: the bootstrap interval of their median is their range. The noise is the largest A/A ratio,
  // 41000 / 40000, scaled to two servers a side: exp(ln(0.9756) / √2) = 0.9827.
  assert.equal(rows[0], '| http/hello-world | 50,250 | 40,200 | 0.800 **slower** | 0.797–0.802 | ±1.7 % | ' +
    '95 % / 96 % | 19.0 → 24.0 µs (1.263, **slower**) | 1.260–1.268 | ±1.8 % |');
  assert.match(rows[1], /^\| http\/cached \| 30,000 \| 30,000 \| 1\.000 \| 1\.000–1\.000 \| ±0\.0 % \|/);
  assert.doesNotMatch(rows[1], /faster|slower/);
});

test('the Markdown names both arms, the settings, and what was not measured', () => {
  const text = report.markdown(sampleRun());
  assert.match(text, /\*\*Base:\*\* loopwire-cpp @ abc <base>/);
  assert.match(text, /3 rounds × 2 s per server after a 1 s warm-up/);
  assert.match(text, /Servers on CPU 0, load \(lwload; h2load for HTTP\/2\) on CPU 1/);
  assert.match(text, /- http\/headers: skipped, base: uwebsockets does not load/);
  assert.match(text, /- ws\/echo-20b: not run, loopwire has no WebSocket yet/);
  assert.match(text, /- http\/cached: 1 stall/);
  assert.match(text, /the load generator set the pace and CPU per request .* is the figure to read/);
});

test('--instructions adds a column', () => {
  const text = report.markdown(sampleRun({ instructions: true }));
  assert.match(text, /\| CPU noise \| Instructions per request \|$/m);
  assert.match(text, /\| 40\.0 k → 41\.2 k \(\+1,200, 1\.030\) \|$/m);
  assert.match(text, /\| failed: valgrind crashed \|$/m);
});

test('the terminal output is the table with the arms', () => {
  const text = report.terminal(sampleRun());
  assert.match(text, /^base: loopwire-cpp @ abc <base>$/m);
  assert.match(text, /^\| http\/hello-world \|/m);
});

test('the JSON keeps everything and names its schema', () => {
  const parsed = JSON.parse(report.json(sampleRun()));
  assert.equal(parsed.schema, 'loopwire-bench-ab/1');
  assert.equal(parsed.scenarios[0].summary.mark, 'slower');
  assert.equal(parsed.scenarios[0].summary.ratios.length, 3);
});

test('the HTML has the table, escapes text, colours marks and draws two charts per measured scenario', () => {
  const page = html(sampleRun());
  assert.match(page, /^<!doctype html>/);
  assert.equal((page.match(/<svg /g) ?? []).length, 4);
  assert.equal((page.match(/<tr>/g) ?? []).length, 3);
  assert.equal((page.match(/<span class="slower">slower<\/span>/g) ?? []).length, 2);
  assert.match(page, /abc &#60;base&#62;/);
  assert.doesNotMatch(page, /<base>/);
  assert.match(page, /ws\/echo-20b: not run/);
});

test('the chart shades the noise band and draws every ratio', () => {
  const summary = sampleRun().scenarios[0].summary;
  const svg = ratioChart({ title: 'http/hello-world', series: summary });
  assert.equal((svg.match(/class="noise-band"/g) ?? []).length, 1);
  assert.equal((svg.match(/class="ab"/g) ?? []).length, 3);
  assert.equal((svg.match(/class="aa-base"/g) ?? []).length, 3);
  assert.equal((svg.match(/class="aa-head"/g) ?? []).length, 3);
  assert.match(svg, /noise ±1\.7 %/);
  assert.match(svg, /median 0\.800, 95 % interval 0\.797–0\.802/);
  assert.equal((svg.match(/class="ab-median"/g) ?? []).length, 1);
  assert.equal((svg.match(/class="ab-interval"/g) ?? []).length, 1);
  assert.match(svg, /stroke="#c0392b"/);
  assert.ok(!/NaN|undefined/.test(svg));
  // The band is drawn around 1: its top edge above (smaller y than) its bottom edge, inside the plot.
  const [, y, height] = /class="noise-band" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"/.exec(svg);
  assert.ok(Number(height) > 0 && Number(y) > 0);
});

test('a one-round chart and a zero-noise chart still draw', () => {
  const summary = summarize([{ base: [m(100), m(100)], head: [m(100), m(100)] }]);
  const svg = ratioChart({ title: 'x', series: summary });
  assert.ok(!/NaN|Infinity/.test(svg));
});

test('the y range holds every value, the noise band and the 2 % lines', () => {
  const [low, high] = yDomain([0.5, 1.01], 0.1);
  assert.ok(low < 0.5 && high > 1.1);
  const [quietLow, quietHigh] = yDomain([1], 0);
  assert.ok(quietLow < 0.98 && quietHigh > 1.02);
});

test('escapeXml', () => {
  assert.equal(escapeXml('<a & "b">'), '&#60;a &#38; &#34;b&#34;&#62;');
});

test('y ticks fall on round values inside the range', () => {
  assert.deepEqual(yTicks(0.53, 1.15), { ticks: [0.6, 0.8, 1, 1.2].filter((v) => v <= 1.15), decimals: 1 });
  const { ticks, decimals } = yTicks(0.97, 1.03);
  assert.equal(decimals, 2);
  assert.ok(ticks.includes(1));
  for (const tick of ticks) assert.ok(tick >= 0.97 && tick <= 1.03);
});

test('a run whose servers did not set the pace shows † instead of a req/s mark, and marks CPU per request', () => {
  const busyWait = summarize([0, 1, 2].map(() => ({ base: [m(60000, 0.72), m(60000, 0.72)],
    head: [m(70000, 0.98), m(70000, 0.98)] })));
  const cells = report.rowCells({ name: 'http/hello-world', summary: busyWait }, false);
  assert.equal(cells[3], '1.167 †');
  assert.equal(cells[6], '72 % / 98 %');
  assert.equal(cells[7], '12.0 → 14.0 µs (1.167, **slower**)');
});

test('WebSocket rows name their unit after the CPU figure, with three significant digits', () => {
  const fast = summarize([0, 1, 2].map(() => ({ base: [m(1000000, 0.9), m(1000000, 0.9)],
    head: [m(1000000, 0.8), m(1000000, 0.8)] })));
  const fanout = report.rowCells({ name: 'ws/fanout', unit: 'delivery', summary: fast }, false);
  assert.match(fanout[7], /^0\.90 → 0\.80 µs\/delivery \(0\.889/);
  const echo = report.rowCells({ name: 'ws/echo-20b', unit: 'message', summary: fast }, false);
  assert.match(echo[7], /µs\/message \(/);
  assert.match(report.rowCells({ name: 'http/cached', unit: 'request', summary: fast }, false)[7], /0\.80 µs \(/);
  assert.ok(report.LEGEND.some((text) => /deliveries per second for ws\/fanout and cluster\/fanout/.test(text)));
});

test('the 1 MiB static rows read per MiB of body', () => {
  const slow = summarize([0, 1, 2].map(() => ({ base: [m(1000, 0.9), m(1000, 0.9)],
    head: [m(1000, 0.8), m(1000, 0.8)] })));
  assert.match(report.rowCells({ name: 'static/1mb', unit: 'MiB', summary: slow }, false)[7],
    /^900 → 800 µs\/MiB \(0\.889/);
  assert.ok(report.LEGEND.some((text) => /µs\/MiB \(static\/1mb, static\/1mb-tls\)/.test(text)));
});

test('a fan-out scenario reports the median of its rounds\' delivery latency per side', () => {
  const copy = (p50, p99) => ({ latencyUs: { p50, p99, max: p99 } });
  const scenario = {
    name: 'cluster/fanout', status: 'measured', unit: 'delivery',
    rounds: [
      { copies: { 'base#1': copy(6000, 18000), 'base#2': copy(7000, 19000), 'head#1': copy(3000, 9000),
        'head#2': copy(3500, 11000) } },
      { copies: { 'base#1': copy(6500, 20000), 'base#2': copy(5000, 17000), 'head#1': copy(2000, 10000),
        'head#2': copy(4000, 12000) } },
    ],
  };
  assert.equal(report.latencyText(scenario, 'base'), '6.00 / 18.0 ms');
  assert.equal(report.latencyText(scenario, 'head'), '3.00 / 10.0 ms');
  assert.deepEqual(report.notes({ scenarios: [scenario] }),
    ['- cluster/fanout: delivery latency p50 / p99 (median of the rounds): base 6.00 / 18.0 ms, head 3.00 / 10.0 ms']);
  assert.equal(report.latencyText({ rounds: [] }, 'base'), null);
});

test('a scenario whose sides sent answers of different sizes says so; about the same size says nothing', () => {
  const copy = (bytesRead, requests = 1000) => ({ bytesRead, requests });
  const round = (base, head) => ({ copies: { 'base#1': copy(base), 'base#2': copy(base + 2000),
    'head#1': copy(head), 'head#2': copy(head - 2000) } });
  const scenario = { name: 'compress/json-50kb', status: 'measured', unit: 'request',
    rounds: [round(8100000, 9300000), round(8102000, 9302000), round(8098000, 9298000)] };
  assert.equal(report.bytesPerRequest(scenario, 'base'), 8100);
  assert.equal(report.bytesPerRequest(scenario, 'head'), 9298);
  assert.deepEqual(report.notes({ scenarios: [scenario] }), ['- compress/json-50kb: the sides sent answers of ' +
    'different sizes, bytes read per request (median of the rounds): base 8,100, head 9,298 (1.148)']);
  const same = { ...scenario, rounds: [round(8100000, 8200000)] };
  assert.deepEqual(report.notes({ scenarios: [same] }), []);
  // Runs recorded before bytes were counted have none to compare.
  assert.equal(report.bytesPerRequest({ rounds: [{ copies: { 'base#1': { requests: 5 } } }] }, 'base'), null);
  assert.deepEqual(report.notes({ scenarios: [{ ...scenario, rounds: [] }] }), []);
});
