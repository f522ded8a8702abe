'use strict';
// Judges one session's result: every reason it fails, in words, or none.

const { describeExit } = require('./serverProcess.js');
const { FD_TOLERANCE, FD_SETTLE_LIMIT_MS } = require('./session.js');
const { MiB } = require('./servers.js');

function mib(bytes) { return `${(bytes / MiB).toFixed(1)} MiB`; }

function clientReasons(tally) {
  const reasons = [];
  if (tally.verifying && tally.sentCount === 0) reasons.push('sent nothing');
  if (tally.verifying && tally.sentCount !== tally.correctCount) {
    reasons.push(`${tally.sentCount - tally.correctCount} of ${tally.sentCount} answers wrong or missing`);
  }
  reasons.push(...tally.failures());
  return reasons.map((reason) => `${tally.kind}: ${reason}`);
}

/** The highest RSS after the baseline, with when it was seen. */
function peakAfterBaseline(samples) {
  let peak = null;
  for (const sample of samples) {
    if (sample.phase === 'warm-up' || sample.rss === null) continue;
    if (!peak || sample.rss > peak.rss) peak = sample;
  }
  return peak;
}

function resourceReasons(result) {
  const reasons = [];
  const { baseline, settled, spec } = result;
  const peak = peakAfterBaseline(result.samples);
  if (baseline && peak && peak.rss - baseline.rss > spec.rssGrowthLimit) {
    reasons.push(`RSS rose to ${mib(peak.rss)} at ${Math.round(peak.atMs / 1000)} s (${peak.phase}): ` +
      `${mib(peak.rss - baseline.rss)} over the baseline of ${mib(baseline.rss)}, allowed ${mib(spec.rssGrowthLimit)}`);
  }
  if (settled && !settled.ok) {
    reasons.push(`${settled.fds} open fds ${Math.round(settled.waitedMs / 1000)} s after the clients stopped, ` +
      `baseline ${baseline.fds} (±${FD_TOLERANCE}; waited up to ${FD_SETTLE_LIMIT_MS / 1000} s)`);
  }
  return reasons;
}

/** Every reason the session fails; [] when it passes. */
function judge(result) {
  if (result.startError) return [`could not run: ${result.startError}`];
  const reasons = [];
  if (result.exitDuringRun) {
    reasons.push(`the server exited during the soak (${describeExit(result.exitDuringRun)}); ` +
      `stderr: ${result.stderr.trim().slice(-500) || '(empty)'}`);
  }
  for (const tally of result.tallies) reasons.push(...clientReasons(tally));
  reasons.push(...resourceReasons(result));
  return reasons;
}

module.exports = { judge };
