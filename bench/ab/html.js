'use strict';
// The HTML report: the same table as the Markdown one, then two SVG charts per measured scenario (chart.js): the
// per-round ratios of requests per second and of CPU per request.
// Self-contained (inline CSS, no script), so it can be opened from disk or kept as a CI artifact.
const { ratioChart, escapeXml } = require('./chart');
const { plural } = require('./format');
const { COLUMNS, INSTRUCTIONS_COLUMN, LEGEND, rowCells, settingsLine } = require('./report');

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 70em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.faster { color: #2a8f3c; font-weight: bold; }
.slower { color: #c0392b; font-weight: bold; }
figure { display: inline-block; margin: 0.5em 1em 1em 0; }
.note { color: #555; font-size: 0.9em; }
`;

// Markdown emphasis (**slower**) becomes a coloured span.
function cellHtml(text) {
  return escapeXml(text).replace(/\*\*(faster|slower)\*\*/g, '<span class="$1">$1</span>');
}

function html(run) {
  const withInstructions = run.settings.instructions;
  const header = withInstructions ? [...COLUMNS, INSTRUCTIONS_COLUMN] : COLUMNS;
  const measured = run.scenarios.filter((s) => s.status === 'measured');
  const rows = measured.map((scenario) =>
    `<tr>${rowCells(scenario, withInstructions).map((cell) => `<td>${cellHtml(cell)}</td>`).join('')}</tr>`);
  const others = run.scenarios.filter((s) => s.status !== 'measured')
    .map((s) => `<li>${escapeXml(s.name)}: ${escapeXml(s.status === 'disabled' ? 'not run' : 'skipped')}, ` +
      `${escapeXml(s.reason)}</li>`);
  const charts = measured.map((scenario) =>
    `<figure>${ratioChart({ title: `${scenario.name}: ${plural(scenario.unit ?? 'request')} per second`,
      series: scenario.summary })}</figure>\n` +
    `<figure>${ratioChart({ title: `${scenario.name}: CPU per ${scenario.unit ?? 'request'}`,
      series: scenario.summary.cpu })}</figure>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>loopwire A/B: ${escapeXml(run.head.label)} vs ${escapeXml(run.base.label)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>loopwire A/B</h1>
<p><b>Base:</b> ${escapeXml(run.base.label)}<br><b>Head:</b> ${escapeXml(run.head.label)}</p>
<p class="note">${escapeXml(settingsLine(run))}</p>
<table>
<thead><tr>${header.map((name) => `<th>${escapeXml(name)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
${LEGEND.map((text) => `<p class="note">${escapeXml(text)}</p>`).join('\n')}
${others.length > 0 ? `<ul class="note">${others.join('')}</ul>` : ''}
<h2>Per-round ratios</h2>
${charts.join('\n')}
</body>
</html>
`;
}

module.exports = { html };
