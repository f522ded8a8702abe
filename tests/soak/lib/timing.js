'use strict';
// Small helpers for time: sleeping, a stop signal that wakes sleepers, and random sizes and delays.

const { setTimeout: sleep } = require('node:timers/promises');

/** A one-way switch that the clients poll (`stopped`) or await (`promise`). */
class StopSignal {
  constructor() {
    this.stopped = false;
    this.promise = new Promise((resolve) => { this.resolve = resolve; });
  }

  stop() {
    this.stopped = true;
    this.resolve();
  }
}

/** Sleeps ms, or less when any of the given promises settles first (a stop signal, a socket closing). */
function sleepUnless(ms, ...wakers) {
  let timer;
  const slept = new Promise((resolve) => { timer = setTimeout(resolve, ms); });
  return Promise.race([slept, ...wakers]).finally(() => clearTimeout(timer));
}

/** An integer in [min, max]. */
function randomInt(min, max) {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** An integer in [min, max] whose logarithm is uniform: small values are as likely as large ones per decade. */
function randomLogInt(min, max) {
  return Math.min(max, Math.floor(Math.exp(Math.log(min) + Math.random() * (Math.log(max + 1) - Math.log(min)))));
}

module.exports = { sleep, sleepUnless, StopSignal, randomInt, randomLogInt };
