'use strict';
// An SVG chart of one series of per-round ratios (requests per second, or CPU per request), against a y axis of
// ratios:
//   - the noise band, 1 ± noise, shaded: where a median of A/A ratios lands in this run;
//   - base#2 / base#1 and head#2 / head#1 (A/A), hollow markers;
//   - head / base (A/B), filled markers joined by a line, red when marked slower, green when faster;
//   - their median, a dashed line, and its interval, a bar at the right edge.
// series: { ratios, aa: { base, head }, ratio, interval, noise, mark }, as stats.summarize() gives for req/s and
// for .cpu.
// Pure: returns the SVG text. Numbers are rounded to 0.1 px so the output is stable for tests.
const { MIN_CHANGE } = require('./stats');

const WIDTH = 560;
const HEIGHT = 260;
const MARGIN = { top: 28, right: 16, bottom: 46, left: 56 };
const Y_TICKS = 5;
// Space above and below the outermost value, as a fraction of the span.
const Y_PADDING = 0.12;
const MARKER_RADIUS = 4;

const COLORS = { band: '#e8ecf3', axis: '#888', grid: '#ddd', aaBase: '#3b6fb6', aaHead: '#d9822b', ab: '#333',
  faster: '#2a8f3c', slower: '#c0392b' };

const px = (n) => Math.round(n * 10) / 10;

function escapeXml(text) {
  return String(text).replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The y range to draw: every value, the noise band and 1 ± MIN_CHANGE, padded; never below 0.
function yDomain(values, noise) {
  const low = Math.min(...values, 1 - noise, 1 - MIN_CHANGE);
  const high = Math.max(...values, 1 + noise, 1 + MIN_CHANGE);
  const pad = (high - low) * Y_PADDING;
  return [Math.max(0, low - pad), high + pad];
}

// Tick values at a round step (1, 2 or 5 times a power of ten) giving about Y_TICKS ticks over [low, high].
function yTicks(low, high) {
  const rough = (high - low) / (Y_TICKS - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((f) => f * power).find((candidate) => candidate >= rough);
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const ticks = [];
  for (let k = Math.ceil(low / step); k <= Math.floor(high / step); k++) {
    ticks.push(Number((k * step).toFixed(decimals + 1)));
  }
  return { ticks, decimals };
}

function ratioChart({ title, series }) {
  const rounds = series.ratios.length;
  const values = [...series.ratios, ...series.aa.base, ...series.aa.head, ...series.interval];
  const [low, high] = yDomain(values, series.noise);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  // Rounds spread over the middle 90 % of the width.
  const x = (round) => MARGIN.left + plotWidth * (rounds === 1 ? 0.5 : 0.05 + (0.9 * round) / (rounds - 1));
  const y = (value) => MARGIN.top + ((high - value) / (high - low)) * plotHeight;
  const parts = [];

  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11" role="img">`);
  parts.push(`<title>${escapeXml(title)}: per-round ratios</title>`);
  parts.push(`<text x="${MARGIN.left}" y="16" font-size="13" font-weight="bold">${escapeXml(title)}</text>`);
  parts.push(`<text x="${WIDTH - MARGIN.right}" y="16" text-anchor="end">median ${series.ratio.toFixed(3)}, ` +
    `95 % interval ${series.interval[0].toFixed(3)}–${series.interval[1].toFixed(3)}</text>`);
  const bandTop = y(Math.min(high, 1 + series.noise));
  const bandBottom = y(Math.max(low, 1 - series.noise));
  parts.push(`<rect class="noise-band" x="${MARGIN.left}" y="${px(bandTop)}" width="${plotWidth}" ` +
    `height="${px(bandBottom - bandTop)}" fill="${COLORS.band}"/>`);
  const { ticks, decimals } = yTicks(low, high);
  for (const value of ticks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${px(y(value))}" y2="${px(y(value))}" ` +
      `stroke="${COLORS.grid}"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${px(y(value) + 4)}" text-anchor="end">` +
      `${value.toFixed(decimals)}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${px(y(1))}" y2="${px(y(1))}" ` +
    `stroke="${COLORS.axis}"/>`);
  for (let round = 0; round < rounds; round++) {
    parts.push(`<text x="${px(x(round))}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">` +
      `round ${round + 1}</text>`);
  }

  const abColor = series.mark ? COLORS[series.mark] : COLORS.ab;
  parts.push(`<line class="ab-median" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${px(y(series.ratio))}" ` +
    `y2="${px(y(series.ratio))}" stroke="${abColor}" stroke-dasharray="4 3"/>`);
  const intervalX = WIDTH - MARGIN.right - 4;
  parts.push(`<line class="ab-interval" x1="${intervalX}" x2="${intervalX}" y1="${px(y(series.interval[1]))}" ` +
    `y2="${px(y(series.interval[0]))}" stroke="${abColor}" stroke-width="3"/>`);
  const path = series.ratios.map((r, i) => `${i === 0 ? 'M' : 'L'}${px(x(i))},${px(y(r))}`).join(' ');
  parts.push(`<path class="ab-line" d="${path}" fill="none" stroke="${abColor}" stroke-width="1.5"/>`);
  series.aa.base.forEach((r, i) => parts.push(`<circle class="aa-base" cx="${px(x(i) - 6)}" cy="${px(y(r))}" ` +
    `r="${MARKER_RADIUS}" fill="white" stroke="${COLORS.aaBase}" stroke-width="1.5"/>`));
  series.aa.head.forEach((r, i) => parts.push(`<rect class="aa-head" x="${px(x(i) + 6 - MARKER_RADIUS)}" ` +
    `y="${px(y(r) - MARKER_RADIUS)}" width="${MARKER_RADIUS * 2}" height="${MARKER_RADIUS * 2}" fill="white" ` +
    `stroke="${COLORS.aaHead}" stroke-width="1.5"/>`));
  series.ratios.forEach((r, i) => parts.push(`<circle class="ab" cx="${px(x(i))}" cy="${px(y(r))}" ` +
    `r="${MARKER_RADIUS + 0.5}" fill="${abColor}"/>`));

  const legendY = HEIGHT - 12;
  const legend = [
    [`<circle cx="0" cy="-4" r="${MARKER_RADIUS}" fill="${abColor}"/>`, 'head / base'],
    [`<circle cx="0" cy="-4" r="${MARKER_RADIUS}" fill="white" stroke="${COLORS.aaBase}" stroke-width="1.5"/>`,
      'base#2 / base#1'],
    [`<rect x="-4" y="-8" width="8" height="8" fill="white" stroke="${COLORS.aaHead}" stroke-width="1.5"/>`,
      'head#2 / head#1'],
    [`<rect x="-5" y="-9" width="10" height="10" fill="${COLORS.band}"/>`,
      `noise ±${(series.noise * 100).toFixed(1)} %`],
  ];
  legend.forEach(([marker, label], i) => {
    parts.push(`<g transform="translate(${MARGIN.left + 8 + i * 125},${legendY})">${marker}` +
      `<text x="9" y="0">${escapeXml(label)}</text></g>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

module.exports = { ratioChart, yDomain, yTicks, escapeXml };
