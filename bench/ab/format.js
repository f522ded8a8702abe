'use strict';
// Number formats shared by the Markdown, HTML and terminal reports.

const thousands = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

const integer = (n) => thousands.format(Math.round(n));
const ratio = (r) => r.toFixed(3);
const ratioRange = ([low, high]) => `${ratio(low)}–${ratio(high)}`;
const noise = (n) => `±${(n * 100).toFixed(1)} %`;
const percent = (fraction) => `${Math.round(fraction * 100)} %`;
// Microseconds with three significant digits or so: 123, 12.3, 1.23 (ws/fanout spends about 1 µs per delivery).
const micros = (us) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
// What a scenario counts (scenarios.js `unit`), in the plural: 'requests', 'messages', 'deliveries', 'MiB'.
const PLURALS = { request: 'requests', message: 'messages', delivery: 'deliveries', MiB: 'MiB' };
const plural = (unit) => PLURALS[unit] ?? `${unit}s`;
// Instruction counts: 41234 -> "41.2 k"
const instructions = (n) => (Math.abs(n) >= 10000 ? `${(n / 1000).toFixed(1)} k` : integer(n));

module.exports = { integer, ratio, ratioRange, noise, percent, micros, plural, instructions };
