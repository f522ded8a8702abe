'use strict';
// Samples the server's RSS and open fd count every second, each sample labelled with the phase of the session
// it was taken in (warm-up, load, settle).

const { residentBytes, openFdCount } = require('./lib/procStats.js');

const SAMPLE_INTERVAL_MS = 1000;

class ResourceSampler {
  constructor(pid, onSample = () => {}) {
    this.pid = pid;
    this.onSample = onSample;
    this.phase = 'start';
    this.startedAt = Date.now();
    this.samples = [];
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  /** Takes a sample now (also between the regular ones) and returns it; null values once the server is gone. */
  sample() {
    const sample = {
      atMs: Date.now() - this.startedAt,
      phase: this.phase,
      rss: residentBytes(this.pid),
      fds: openFdCount(this.pid),
    };
    this.samples.push(sample);
    this.onSample(sample);
    return sample;
  }

  setPhase(phase) { this.phase = phase; }

  stop() { clearInterval(this.timer); }
}

module.exports = { ResourceSampler, SAMPLE_INTERVAL_MS };
