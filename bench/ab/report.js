'use strict';
// The results of a run as a table (Markdown, also printed on stdout) and as JSON. Pure: takes the run object that
// run.js builds and returns text; the HTML report is html.js.
//
// The run object: { date, settings, machine, base, head, scenarios: [{ name, status: 'measured' | 'skipped' |
// 'disabled', reason?, summary?, instructions?, rounds? }] }, where summary is stats.summarize()'s and base/head
// describe the arms ({ label }).
const fmt = require('./format');

const COLUMNS = ['Scenario', 'Base req/s', 'Head req/s', 'Head / base', 'Interval', 'Noise', 'Busy',
  'CPU per request', 'CPU interval', 'CPU noise'];
const INSTRUCTIONS_COLUMN = 'Instructions per request';
// Column alignment in Markdown: numbers right, the rest centred.
const ALIGN = ['---', '--:', '--:', '--:', ':-:', '--:', ':-:', ':-:', ':-:', '--:'];

const markText = (mark) => (mark ? ` **${mark}**` : '');
// After a req/s ratio that was not eligible for a mark: the servers did not set the pace (see LEGEND).
const NOT_SERVER_BOUND = ' †';

// After the CPU figure of a row that counts something else than HTTP requests (scenarios.js `unit`): "/message".
const unitSuffix = (scenario) => (scenario.unit && scenario.unit !== 'request' ? `/${scenario.unit}` : '');

// The cells of one measured scenario, as plain text with Markdown emphasis on the marks.
function rowCells(scenario, withInstructions) {
  const s = scenario.summary;
  const cells = [
    scenario.name,
    fmt.integer(s.base.rps),
    fmt.integer(s.head.rps),
    `${fmt.ratio(s.ratio)}${s.serverBound ? markText(s.mark) : NOT_SERVER_BOUND}`,
    fmt.ratioRange(s.interval),
    fmt.noise(s.noise),
    `${fmt.percent(s.base.busy)} / ${fmt.percent(s.head.busy)}`,
    `${fmt.micros(s.base.cpuPerRequestUs)} → ${fmt.micros(s.head.cpuPerRequestUs)} µs${unitSuffix(scenario)} ` +
      `(${fmt.ratio(s.cpu.ratio)}${s.cpu.mark ? `, **${s.cpu.mark}**` : ''})`,
    fmt.ratioRange(s.cpu.interval),
    fmt.noise(s.cpu.noise),
  ];
  if (withInstructions) cells.push(instructionsCell(scenario.instructions));
  return cells;
}

function instructionsCell(counts) {
  if (!counts) return '–';
  if (counts.error) return `failed: ${counts.error}`;
  const { base, head } = counts;
  const difference = Math.round(head.perRequest - base.perRequest);
  return `${fmt.instructions(base.perRequest)} → ${fmt.instructions(head.perRequest)} ` +
    `(${difference >= 0 ? '+' : '−'}${fmt.integer(Math.abs(difference))}, ` +
    `${fmt.ratio(head.perRequest / base.perRequest)})`;
}

function tableLines(run) {
  const withInstructions = run.settings.instructions;
  const header = withInstructions ? [...COLUMNS, INSTRUCTIONS_COLUMN] : COLUMNS;
  const align = withInstructions ? [...ALIGN, ':-:'] : ALIGN;
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const lines = [line(header), line(align)];
  for (const scenario of run.scenarios) {
    if (scenario.status === 'measured') lines.push(line(rowCells(scenario, withInstructions)));
  }
  return lines;
}

function settingsLine(run) {
  const s = run.settings;
  return `${s.rounds} rounds × ${s.duration} s per server after a ${s.warmup} s warm-up; each side runs twice ` +
    `(base#1, head#1, base#2, head#2). Servers on CPU ${s.serverCpu}, load (lwload; h2load for HTTP/2) on CPU ${s.loadCpu}. ` +
    `${run.date}; ${run.machine.cpuModel}, ${run.machine.cpus} CPUs, load average ${run.machine.loadAverage}.`;
}

// The median of the rounds' delivery latency percentiles (lwload's, from the moment the publisher wrote a
// message) of one side, as "p50 / p99 ms"; null when no round has them.
function latencyText(scenario, side) {
  const values = (key) => (scenario.rounds ?? []).flatMap((round) => Object.entries(round.copies)
    .filter(([copy, m]) => copy.startsWith(side) && m.latencyUs).map(([, m]) => m.latencyUs[key])).sort((a, b) => a - b);
  const p50 = values('p50');
  const p99 = values('p99');
  if (p50.length === 0) return null;
  const median = (list) => list[Math.floor((list.length - 1) / 2)];
  const ms = (us) => (us / 1000).toPrecision(3);
  return `${ms(median(p50))} / ${ms(median(p99))} ms`;
}

// How far apart the two sides' bytes per request may be before the report says so: within it, both sent about the
// same; beyond it (an answer coded at another level, headers of another server), CPU per request pays for different
// work, which the reader should know.
const RESPONSE_BYTES_NOTE_SHARE = 0.05;

// The median over the rounds of one side's bytes read per request (lwload's bytes_read: status lines, headers and
// bodies as they came, chunked framing included), rounded; null when no round has it.
function bytesPerRequest(scenario, side) {
  const values = (scenario.rounds ?? []).flatMap((round) => Object.entries(round.copies)
    .filter(([copy, m]) => copy.startsWith(side) && m.bytesRead !== undefined && m.requests > 0)
    .map(([, m]) => m.bytesRead / m.requests)).sort((a, b) => a - b);
  if (values.length === 0) return null;
  return Math.round(values[Math.floor((values.length - 1) / 2)]);
}

// The note on a scenario whose sides sent answers of different sizes, or null.
function responseBytesNote(scenario) {
  const base = bytesPerRequest(scenario, 'base');
  const head = bytesPerRequest(scenario, 'head');
  if (base === null || head === null || Math.abs(head - base) <= RESPONSE_BYTES_NOTE_SHARE * Math.max(base, head)) {
    return null;
  }
  const per = scenario.unit && scenario.unit !== 'request' ? scenario.unit : 'request';
  return `- ${scenario.name}: the sides sent answers of different sizes, bytes read per ${per} (median of the ` +
    `rounds): base ${fmt.integer(base)}, head ${fmt.integer(head)} (${fmt.ratio(head / base)})`;
}

function notes(run) {
  const lines = [];
  for (const scenario of run.scenarios) {
    if (scenario.status === 'measured' && scenario.unit === 'delivery') {
      const base = latencyText(scenario, 'base');
      const head = latencyText(scenario, 'head');
      if (base && head) lines.push(`- ${scenario.name}: delivery latency p50 / p99 (median of the rounds): base ${base}, head ${head}`);
    }
    const sizes = scenario.status === 'measured' ? responseBytesNote(scenario) : null;
    if (sizes !== null) lines.push(sizes);
    if (scenario.status === 'skipped') lines.push(`- ${scenario.name}: skipped, ${scenario.reason}`);
    if (scenario.status === 'disabled') lines.push(`- ${scenario.name}: not run, ${scenario.reason}`);
    for (const warning of scenario.warnings ?? []) lines.push(`- ${scenario.name}: ${warning}`);
  }
  return lines;
}

const LEGEND = [
  'Head / base: median of the per-round ratios of requests per second (each side the mean of its two servers). ' +
    'Interval: 95 % bootstrap interval of that median. Noise: where 99 % of the medians of as many A/A ratios ' +
    '(base#2/base#1 and head#2/head#1, resampled, scaled to two servers a side) land around 1. A ratio is marked ' +
    'faster or slower only when it lies outside the noise, by at least 2 %, and its interval excludes 1.',
  'Busy: server CPU time over wall time, base / head. When it is well under 100 %, the load generator set the ' +
    'pace and CPU per request (server CPU µs per request, base → head, and the median of its per-round ratios, ' +
    'marked by the same rule with its own interval and noise) is the figure to read. † Busy was under 90 % on a side: Head / base is not marked.',
  'WebSocket rows count messages, not requests: req/s is echoes per second for ws/echo-* and deliveries per ' +
    'second for ws/fanout and cluster/fanout (one message published to its 1,000 subscribers is 1,000 ' +
    'deliveries), and CPU per request is server CPU per echo (µs/message) or per delivery (µs/delivery); for ' +
    'cluster/fanout, the CPU of both nodes and of Redis together.',
  'Rows in µs/MiB (static/1mb, static/1mb-tls) count responses that are each one file of 1 MiB: req/s is MiB of ' +
    'body per second and CPU per request is server CPU per MiB (1 µs/MiB is 0.98 ns per KiB, 0.95 ps per byte).',
];

function markdown(run) {
  const lines = [
    '# loopwire A/B',
    '',
    `- **Base:** ${run.base.label}`,
    `- **Head:** ${run.head.label}`,
    '',
    settingsLine(run),
    '',
    ...tableLines(run),
    '',
    ...LEGEND.flatMap((text) => [text, '']),
  ];
  if (run.settings.instructions) {
    lines.push('Instructions per request: callgrind, (Ir after N₂ requests − Ir after N₁) / (N₂ − N₁), base → ' +
      'head (ratio); independent of the machine\'s load.', '');
  }
  const extra = notes(run);
  if (extra.length > 0) lines.push(...extra, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

// What stdout gets: the arms and the table.
function terminal(run) {
  return [`base: ${run.base.label}`, `head: ${run.head.label}`, '', ...tableLines(run), '', ...notes(run)]
    .join('\n').trimEnd() + '\n';
}

function json(run) {
  return `${JSON.stringify({ schema: 'loopwire-bench-ab/1', ...run }, null, 2)}\n`;
}

module.exports = { COLUMNS, INSTRUCTIONS_COLUMN, LEGEND, rowCells, tableLines, settingsLine, notes, latencyText,
  bytesPerRequest, markdown, terminal, json };
