'use strict';
// The statistics of an A/B run. Pure functions of the measurements, no I/O, so that every rule is unit-tested
// (test/stats.test.js).
//
// A run measures four server processes per scenario: base#1, head#1, base#2, head#2. In each round every copy
// is loaded once and gives one measurement { requests, rps, cpuSeconds, wallSeconds }. From a round:
//   - the A/B ratio is mean(head#1, head#2) / mean(base#1, base#2) of the requests per second;
//   - the A/A ratios are base#2 / base#1 and head#2 / head#1: two servers built from the same tree, whose only
//     differences are the noise of this machine in this minute.
// Over the rounds, Head / base is the median of the A/B ratios. Two figures say what that median is worth:
//   - Interval: a 95 % bootstrap interval of the median (the rounds resampled with replacement), how far the
//     median could have moved had the rounds come out otherwise;
//   - Noise: where the median of as many rounds lands when both sides are the same build. The A/A ratios of
//     this run are resampled into medians the same way, and the band holds NOISE_LEVEL of those medians around 1.
// A ratio is marked only when the median lies outside the noise, by at least MIN_CHANGE, and its interval lies
// wholly on one side of 1 (see classify()). CPU per request gets the same treatment with its own ratios, interval
// and noise (lower is better there).
//
// Why not the largest distance from 1 of any single A/A ratio, as before: that bounds one round, while the figure
// judged is a median over rounds, whose spread shrinks with their number. It gave ±20-40 % bands on a 2-core
// machine, wider than the changes worth seeing. test/stats.test.js runs repeated simulated A/A runs (and runs
// with a real change) through the rule to show how often each is marked.
//
// Requests per second measure the servers only when the servers set the pace: Head / base is marked only when
// both sides kept their servers busy (Busy, CPU time over wall time) at least SERVER_BOUND_BUSY of the time.
// Below that the load generator, or other processes holding the CPU, set the pace; req/s then says more about
// them than about the server (a server that answers later can even let the client batch more and look faster),
// and CPU per request is the figure to read. `verdict` is the row's answer: the req/s mark when the servers set
// the pace, else the CPU-per-request mark.

// The smallest change that is ever marked, whatever the noise: 2 %.
const MIN_CHANGE = 0.02;
// Ratios are floating point: 1 - 0.95 is 0.05000000000000004. Comparisons with the thresholds allow this much,
// so that a change exactly at the noise (or at 2 %) is treated as exactly there.
const FLOAT_SLACK = 1e-9;
// Busy share from which a side's servers are taken to have set the pace.
const SERVER_BOUND_BUSY = 0.9;
// Coverage of the interval of the A/B median, and the share of A/A medians the noise band holds. The band is
// the wider of the two: a false mark needs the median outside it, which an A/A run reaches about 1 time in 100.
const INTERVAL_LEVEL = 0.95;
const NOISE_LEVEL = 0.99;
// Resamples per bootstrap: the quantiles then move by well under 0.5 % from one seed to another.
const BOOTSTRAP_DRAWS = 2000;
// Resampling is seeded: the same measurements always give the same report.
const BOOTSTRAP_SEED = 0x5eed1;

function median(values) {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// [smallest, largest]
function range(values) {
  if (values.length === 0) throw new RangeError('range of no values');
  return [Math.min(...values), Math.max(...values)];
}

const mean = (a, b) => (a + b) / 2;

// A small seeded generator of uniform numbers in [0, 1) (mulberry32): reproducible, unlike Math.random.
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The value below which a share p of the sorted values lie.
function quantile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(p * sorted.length)))];
}

// BOOTSTRAP_DRAWS medians of `size` values drawn with replacement from values, sorted.
function bootstrapMedians(values, size, random) {
  const medians = new Array(BOOTSTRAP_DRAWS);
  const sample = new Array(size);
  for (let draw = 0; draw < BOOTSTRAP_DRAWS; draw++) {
    for (let i = 0; i < size; i++) sample[i] = values[Math.floor(random() * values.length)];
    medians[draw] = median(sample);
  }
  return medians.sort((a, b) => a - b);
}

// The INTERVAL_LEVEL bootstrap interval of the median of ratios: [low, high].
function medianInterval(ratios, random = seededRandom(BOOTSTRAP_SEED)) {
  if (ratios.length === 0) throw new RangeError('interval of no ratios');
  const medians = bootstrapMedians(ratios, ratios.length, random);
  const tail = (1 - INTERVAL_LEVEL) / 2;
  return [quantile(medians, tail), quantile(medians, 1 - tail)];
}

// The noise band for a median of `rounds` A/B ratios, from the A/A ratios of the run: the distance from 1 within
// which NOISE_LEVEL of the bootstrapped A/A medians lie. An A/A ratio compares one server with one, an A/B ratio
// the mean of two with the mean of two, whose logarithm spreads √2 less: each A/A ratio is scaled by that first.
// 0 for no ratios.
function noiseBand(aaRatios, rounds, random = seededRandom(BOOTSTRAP_SEED)) {
  if (aaRatios.length === 0 || rounds === 0) return 0;
  const scaled = aaRatios.map((ratio) => Math.exp(Math.log(ratio) / Math.SQRT2));
  const distances = bootstrapMedians(scaled, rounds, random).map((m) => Math.abs(m - 1)).sort((a, b) => a - b);
  return quantile(distances, NOISE_LEVEL);
}

// 'faster', 'slower' or null for the median of the per-round head/base ratios, its interval and the noise band.
// higherIsBetter: true for requests per second, false for CPU per request. A change is marked only when
//   |ratio - 1| > noise, |ratio - 1| >= minChange, and the interval lies wholly on the ratio's side of 1.
function classify({ ratio, interval, noise }, { higherIsBetter = true, minChange = MIN_CHANGE } = {}) {
  const change = ratio - 1;
  const moved = Math.abs(change);
  if (!(moved > noise + FLOAT_SLACK) || moved < minChange - FLOAT_SLACK) return null;
  const up = change > 0;
  if (up ? !(interval[0] > 1) : !(interval[1] < 1)) return null;
  return up === higherIsBetter ? 'faster' : 'slower';
}

// The median, interval and noise of one series of per-round ratios and its A/A ratios, and its mark.
function judge(ratios, aa, { higherIsBetter, minChange }) {
  const judged = {
    ratio: median(ratios),
    interval: medianInterval(ratios),
    noise: noiseBand([...aa.base, ...aa.head], ratios.length),
  };
  return { ...judged, mark: classify(judged, { higherIsBetter, minChange }) };
}

const cpuPerRequest = (m) => m.cpuSeconds / m.requests;

// Totals of several measurements of one side (both copies, every round).
function sideTotals(measurements) {
  const total = { requests: 0, cpuSeconds: 0, wallSeconds: 0 };
  for (const m of measurements) {
    total.requests += m.requests;
    total.cpuSeconds += m.cpuSeconds;
    total.wallSeconds += m.wallSeconds;
  }
  return {
    busy: total.wallSeconds > 0 ? total.cpuSeconds / total.wallSeconds : 0,
    cpuPerRequestUs: total.requests > 0 ? (total.cpuSeconds / total.requests) * 1e6 : 0,
    ...total,
  };
}

// rounds: [{ base: [m1, m2], head: [m1, m2] }], each m a measurement of one copy in that round.
// Returns everything the report shows for one scenario.
function summarize(rounds, { minChange = MIN_CHANGE } = {}) {
  if (rounds.length === 0) throw new RangeError('no rounds to summarize');
  const baseRps = rounds.map((r) => mean(r.base[0].rps, r.base[1].rps));
  const headRps = rounds.map((r) => mean(r.head[0].rps, r.head[1].rps));
  const ratios = rounds.map((_, i) => headRps[i] / baseRps[i]);
  const aa = { base: rounds.map((r) => r.base[1].rps / r.base[0].rps),
    head: rounds.map((r) => r.head[1].rps / r.head[0].rps) };
  const rps = judge(ratios, aa, { higherIsBetter: true, minChange });

  const cpuOfSide = (pair) => mean(cpuPerRequest(pair[0]), cpuPerRequest(pair[1]));
  const cpuRatios = rounds.map((r) => cpuOfSide(r.head) / cpuOfSide(r.base));
  const cpuAa = { base: rounds.map((r) => cpuPerRequest(r.base[1]) / cpuPerRequest(r.base[0])),
    head: rounds.map((r) => cpuPerRequest(r.head[1]) / cpuPerRequest(r.head[0])) };
  const cpu = judge(cpuRatios, cpuAa, { higherIsBetter: false, minChange });

  const base = sideTotals(rounds.flatMap((r) => r.base));
  const head = sideTotals(rounds.flatMap((r) => r.head));
  const serverBound = base.busy >= SERVER_BOUND_BUSY && head.busy >= SERVER_BOUND_BUSY;
  const mark = serverBound ? rps.mark : null;
  return {
    base: { rps: median(baseRps), ...base },
    head: { rps: median(headRps), ...head },
    ratio: rps.ratio,
    interval: rps.interval,
    range: range(ratios),
    ratios,
    aa,
    noise: rps.noise,
    serverBound,
    mark,
    verdict: mark ?? cpu.mark,
    cpu: { ...cpu, ratios: cpuRatios, aa: cpuAa },
  };
}

module.exports = { MIN_CHANGE, SERVER_BOUND_BUSY, INTERVAL_LEVEL, NOISE_LEVEL, median, range, seededRandom,
  medianInterval, noiseBand, classify, sideTotals, summarize };
