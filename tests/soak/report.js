'use strict';
// Prints a session's results: the table of client kinds, the RSS and fd series, and its verdict.

const { MiB } = require('./servers.js');

const COLUMNS = ['client kind', 'sent', 'correct', 'errors', 'notes'];
const MAX_VALUES_PER_PHASE = 60;
const STDERR_LINES_SHOWN = 10;

function tableRows(tallies) {
  return tallies.map((tally) => [
    `${tally.kind}${tally.verifying ? '' : ' *'}`,
    String(tally.sentCount),
    String(tally.correctCount),
    String(tally.errorCount),
    tally.notesText(),
  ]);
}

function formatTable(rows) {
  const widths = COLUMNS.map((column, i) => Math.max(column.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i])
    : cell.padStart(widths[i]))).join(' | ').trimEnd();
  return [line(COLUMNS), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(line)].join('\n');
}

/** Values of one phase with runs of equal values shortened to "value*count". */
function compact(values) {
  const parts = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j < values.length && values[j] === values[i]) j++;
    parts.push(j - i > 2 ? `${values[i]}*${j - i}` : Array(j - i).fill(values[i]).join(' '));
    i = j;
  }
  return parts.join(' ');
}

/** values, or the largest of each run of `per` values when there are more than MAX_VALUES_PER_PHASE. */
function downsample(values) {
  const per = Math.ceil(values.length / MAX_VALUES_PER_PHASE);
  if (per <= 1) return { values, per };
  const largest = [];
  for (let i = 0; i < values.length; i += per) {
    largest.push(values.slice(i, i + per).reduce((a, b) => (b === null || (a !== null && a >= b) ? a : b)));
  }
  return { values: largest, per };
}

/** "warm-up: 41 42 | load: 43 45*12 ... | settle: 44", one value per sample (or the largest of each few). */
function series(samples, valueOf) {
  const phases = [];
  for (const sample of samples) {
    if (phases.at(-1)?.phase !== sample.phase) phases.push({ phase: sample.phase, values: [] });
    phases.at(-1).values.push(valueOf(sample));
  }
  return phases.map(({ phase, values }) => {
    const shown = downsample(values);
    return `${phase}${shown.per > 1 ? ` (largest of each ${shown.per} s)` : ''}: ${compact(shown.values.map(format))}`;
  }).join(' | ');
}

function format(value) { return value === null ? '-' : String(value); }

function printSession(result, reasons) {
  console.log(`\n== ${result.name}: ${reasons.length === 0 ? 'PASS' : 'FAIL'}`);
  if (result.startError) {
    console.log(`could not run: ${result.startError}`);
    return;
  }
  console.log(formatTable(tableRows(result.tallies)));
  console.log('(* hostile: their errors are expected; they fail the soak only by what they show of the server)');
  const baseline = result.baseline;
  if (baseline) {
    console.log(`baseline after warm-up: RSS ${(baseline.rss / MiB).toFixed(1)} MiB, ${baseline.fds} fds; ` +
      `RSS may grow by ${result.spec.rssGrowthLimit / MiB} MiB`);
  }
  console.log(`RSS MiB, 1/s: ${series(result.samples, (s) => (s.rss === null ? null : Math.round(s.rss / MiB)))}`);
  console.log(`open fds, 1/s: ${series(result.samples, (s) => s.fds)}`);
  if (result.settled) {
    console.log(`fds after the clients stopped: ${result.settled.fds}, ${result.settled.ok ? 'back at' : 'NOT back at'} ` +
      `the baseline after ${(result.settled.waitedMs / 1000).toFixed(0)} s`);
  }
  const stderr = (result.stderr ?? '').trim();
  if (stderr) console.log(`server stderr (last lines):\n${stderr.split('\n').slice(-STDERR_LINES_SHOWN).join('\n')}`);
  for (const reason of reasons) console.log(`FAIL ${result.name}: ${reason}`);
}

module.exports = { printSession };
