'use strict';
// The statistics of the A/B table: medians, ranges, noise, the marking rule, Busy and CPU per request.
const test = require('node:test');
const assert = require('node:assert/strict');
const { MIN_CHANGE, median, range, noiseOf, classify, sideTotals, summarize } = require('../stats');

const near = (actual, expected, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected}`);

// A measurement of one server for one round: rps over 1 s of wall time, cpuSeconds of server CPU (by default a
// server that set the pace).
const m = (rps, cpuSeconds = 0.95) => ({ rps, requests: rps, cpuSeconds, wallSeconds: 1 });

test('median of odd and even counts, unsorted input left as it was', () => {
  const values = [3, 1, 2];
  assert.equal(median(values), 2);
  assert.deepEqual(values, [3, 1, 2]);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.throws(() => median([]), RangeError);
});

test('range is [smallest, largest]', () => {
  assert.deepEqual(range([1.02, 0.97, 1.01]), [0.97, 1.02]);
  assert.deepEqual(range([1]), [1, 1]);
  assert.throws(() => range([]), RangeError);
});

test('noise is the largest distance from 1 on either side', () => {
  near(noiseOf([1.01, 0.96, 1.03]), 0.04);
  near(noiseOf([1.05, 0.99]), 0.05);
  assert.equal(noiseOf([]), 0);
});

test('classify marks a change beyond the noise and 2 % with every round the same way', () => {
  assert.equal(classify([0.90, 0.88, 0.92], 0.03), 'slower');
  assert.equal(classify([1.10, 1.12, 1.08], 0.03), 'faster');
});

test('classify leaves a change within the noise unmarked', () => {
  assert.equal(classify([0.95, 0.94, 0.96], 0.06), null);
  // Exactly at the noise is not more than the noise.
  assert.equal(classify([0.95, 0.95, 0.95], 0.05), null);
});

test('classify leaves a change under 2 % unmarked, however quiet the run', () => {
  assert.equal(classify([0.985, 0.985, 0.985], 0.001), null);
  assert.equal(classify([1 + MIN_CHANGE, 1 + MIN_CHANGE, 1 + MIN_CHANGE], 0.001), 'faster');
});

test('classify leaves a change unmarked when one round went the other way or stayed at 1', () => {
  assert.equal(classify([0.80, 0.82, 1.01], 0.03), null);
  assert.equal(classify([0.80, 0.82, 1.0], 0.03), null);
  assert.equal(classify([1.2, 1.25, 0.99], 0.03), null);
});

test('classify with lower-is-better (CPU per request) inverts the verdict', () => {
  assert.equal(classify([1.3, 1.25, 1.28], 0.05, { higherIsBetter: false }), 'slower');
  assert.equal(classify([0.7, 0.72, 0.75], 0.05, { higherIsBetter: false }), 'faster');
  assert.equal(classify([], 0), null);
});

test('sideTotals: Busy is CPU over wall time, CPU per request is CPU microseconds over requests', () => {
  const totals = sideTotals([
    { requests: 1000, cpuSeconds: 0.5, wallSeconds: 1 },
    { requests: 3000, cpuSeconds: 1.5, wallSeconds: 2 },
  ]);
  near(totals.busy, 2 / 3);
  near(totals.cpuPerRequestUs, 500);
  assert.equal(totals.requests, 4000);
});

test('summarize: ratios are means of the two copies per side, Head / base their median', () => {
  const rounds = [
    { base: [m(100), m(102)], head: [m(90), m(92)] },
    { base: [m(98), m(100)], head: [m(89), m(89)] },
    { base: [m(101), m(99)], head: [m(95), m(93)] },
  ];
  const s = summarize(rounds);
  near(s.ratios[0], 91 / 101);
  near(s.ratios[1], 89 / 99);
  near(s.ratios[2], 94 / 100);
  near(s.ratio, 91 / 101);
  assert.deepEqual(s.range, [89 / 99, 94 / 100]);
  near(s.base.rps, 100);
  near(s.head.rps, 91);
  assert.deepEqual(s.aa.base, [102 / 100, 100 / 98, 99 / 101]);
  assert.deepEqual(s.aa.head, [92 / 90, 1, 93 / 95]);
  near(s.noise, 92 / 90 - 1);
  assert.equal(s.mark, 'slower');
});

test('req/s is marked only when both sides kept their servers busy; else the verdict is CPU per request', () => {
  const slower = (baseCpu, headCpu) => [0, 1, 2].map(() => ({
    base: [m(100, baseCpu), m(101, baseCpu)],
    head: [m(80, headCpu), m(81, headCpu)],
  }));
  const bound = summarize(slower(0.95, 0.95));
  assert.equal(bound.serverBound, true);
  assert.equal(bound.mark, 'slower');
  assert.equal(bound.verdict, 'slower');

  const clientBound = summarize(slower(0.6, 0.95));
  assert.equal(clientBound.serverBound, false);
  assert.equal(clientBound.mark, null);
  assert.equal(clientBound.cpu.mark, 'slower');
  assert.equal(clientBound.verdict, 'slower');

  // The busy-wait case on a client-bound machine: head answers later, the client batches more and gets more
  // requests through, yet every request costs the server more. The verdict follows CPU per request.
  const busyWait = summarize([0, 1, 2].map(() => ({
    base: [m(60000, 0.72), m(60500, 0.72)],
    head: [m(70000, 0.98), m(70500, 0.98)],
  })));
  assert.equal(busyWait.serverBound, false);
  assert.equal(busyWait.mark, null);
  assert.equal(busyWait.cpu.mark, 'slower');
  assert.equal(busyWait.verdict, 'slower');
});

test('summarize: an A/A run inside its own noise is not marked', () => {
  const rounds = [
    { base: [m(100), m(97)], head: [m(99), m(102)] },
    { base: [m(101), m(100)], head: [m(98), m(100)] },
    { base: [m(99), m(101)], head: [m(101), m(99)] },
  ];
  const s = summarize(rounds);
  assert.equal(s.mark, null);
  assert.equal(s.cpu.mark, null);
});

test('summarize: CPU per request has its own ratio, noise and mark', () => {
  // Same throughput, but head spends 30 % more CPU per request: the load generator set the pace.
  const rounds = [1, 2, 3].map(() => ({ base: [m(100, 0.5), m(100, 0.51)], head: [m(100, 0.65), m(100, 0.66)] }));
  const s = summarize(rounds);
  assert.equal(s.mark, null);
  assert.equal(s.verdict, 'slower');
  near(s.base.cpuPerRequestUs, 0.505 / 100 * 1e6);
  near(s.cpu.ratio, 0.655 / 0.505);
  near(s.cpu.noise, 0.51 / 0.5 - 1);
  assert.equal(s.cpu.mark, 'slower');
  near(s.base.busy, 0.505);
});

test('summarize refuses no rounds', () => {
  assert.throws(() => summarize([]), RangeError);
});
