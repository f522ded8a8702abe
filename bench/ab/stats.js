'use strict';
// The statistics of an A/B run. Pure functions of the measurements, no I/O, so that every rule is unit-tested
// (test/stats.test.js).
//
// A run measures four server processes per scenario: base#1, head#1, base#2, head#2. In each round every copy
// is loaded once and gives one measurement { requests, rps, cpuSeconds, wallSeconds }. From a round:
//   - the A/B ratio is mean(head#1, head#2) / mean(base#1, base#2) of the requests per second;
//   - the A/A ratios are base#2 / base#1 and head#2 / head#1: two servers built from the same tree, whose only
//     differences are the noise of this machine in this minute.
// Over the rounds: Head / base is the median of the A/B ratios, Rounds their range, and Noise the largest
// distance from 1 of any A/A ratio. A ratio is marked only when the median moved more than the noise, by at least
// MIN_CHANGE, and every round moved the same way (see classify()). CPU per request gets the same treatment with
// its own ratios and noise (lower is better there).
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

// The largest |ratio - 1| over all the ratios given; 0 for none.
function noiseOf(ratios) {
  return ratios.reduce((largest, ratio) => Math.max(largest, Math.abs(ratio - 1)), 0);
}

// 'faster', 'slower' or null for a list of per-round head/base ratios and the noise of the run.
// higherIsBetter: true for requests per second, false for CPU per request. A change is marked only when
//   |median - 1| > noise, |median - 1| >= minChange, and every ratio lies on the median's side of 1.
function classify(ratios, noise, { higherIsBetter = true, minChange = MIN_CHANGE } = {}) {
  if (ratios.length === 0) return null;
  const change = median(ratios) - 1;
  const moved = Math.abs(change);
  if (!(moved > noise + FLOAT_SLACK) || moved < minChange - FLOAT_SLACK) return null;
  const up = change > 0;
  if (!ratios.every((ratio) => (up ? ratio > 1 : ratio < 1))) return null;
  return up === higherIsBetter ? 'faster' : 'slower';
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
  const aaBase = rounds.map((r) => r.base[1].rps / r.base[0].rps);
  const aaHead = rounds.map((r) => r.head[1].rps / r.head[0].rps);
  const noise = noiseOf([...aaBase, ...aaHead]);

  const cpuOfSide = (pair) => mean(cpuPerRequest(pair[0]), cpuPerRequest(pair[1]));
  const cpuRatios = rounds.map((r) => cpuOfSide(r.head) / cpuOfSide(r.base));
  const cpuAaBase = rounds.map((r) => cpuPerRequest(r.base[1]) / cpuPerRequest(r.base[0]));
  const cpuAaHead = rounds.map((r) => cpuPerRequest(r.head[1]) / cpuPerRequest(r.head[0]));
  const cpuNoise = noiseOf([...cpuAaBase, ...cpuAaHead]);

  const base = sideTotals(rounds.flatMap((r) => r.base));
  const head = sideTotals(rounds.flatMap((r) => r.head));
  const serverBound = base.busy >= SERVER_BOUND_BUSY && head.busy >= SERVER_BOUND_BUSY;
  const mark = serverBound ? classify(ratios, noise, { minChange }) : null;
  const cpuMark = classify(cpuRatios, cpuNoise, { higherIsBetter: false, minChange });
  return {
    base: { rps: median(baseRps), ...base },
    head: { rps: median(headRps), ...head },
    ratio: median(ratios),
    range: range(ratios),
    ratios,
    aa: { base: aaBase, head: aaHead },
    noise,
    serverBound,
    mark,
    verdict: mark ?? cpuMark,
    cpu: {
      ratio: base.cpuPerRequestUs > 0 ? head.cpuPerRequestUs / base.cpuPerRequestUs : 0,
      ratios: cpuRatios,
      aa: { base: cpuAaBase, head: cpuAaHead },
      noise: cpuNoise,
      mark: cpuMark,
    },
  };
}

module.exports = { MIN_CHANGE, SERVER_BOUND_BUSY, median, range, noiseOf, classify, sideTotals, summarize };
