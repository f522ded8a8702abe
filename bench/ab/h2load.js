'use strict';
// Running h2load (Debian's nghttp2-client) against one server for the h2/* and h2c/* scenarios, and reading its
// report into the shape of lwload's JSON line (bench/ab/load.js), so that the rest of the runner measures HTTP/2
// as it measures everything else. lwload speaks no HTTP/2; h2load is the load generator HTTP/2 servers are measured
// with (h2o's and nghttp2's own figures are h2load's).
//
// What h2load does not give, and how it is filled:
// - its own CPU time: h2load runs under `sh -c`, which prints its own /proc/<pid>/stat once h2load has exited; the
//   children's times there (cutime, cstime) are h2load's.
// - a timed run shorter than its connections take to open: h2load 1.52 never ends a -D run whose duration passes
//   before all of its connections are up (node:http2 takes up to 1.7 s for 100 TLS handshakes on one core), so a
//   timed run lasts at least MIN_TIMED_SECONDS (the runner's warm-up asks for 1 s).
// - latency percentiles: h2load prints the mean and the maximum time per request, not percentiles; p50 holds the
//   mean (the report shows it as "p50"), p99 is null.
const { parseStat, clockTicksPerSecond } = require('./procstat');

const MIN_TIMED_SECONDS = 3;
// What sh runs: h2load with the arguments, then the shell's own stat line on a line of its own after h2load's
// report, and h2load's exit status.
const SHELL_WRAPPER = 'h2load "$@"; status=$?; echo; cat /proc/$$/stat; exit $status';

// The h2load arguments for scenario against 127.0.0.1:port: `connections` connections, each with the scenario's
// `streams` requests in flight (-m), for `seconds` (-D) or `requests` (-n) in all; one thread. Request headers from
// request.headers (lower-cased: HTTP/2 has no other), a body from request.bodyFile (h2load then sends POST). TLS
// (request.tls) offers h2 alone by ALPN; cleartext uses prior knowledge, as h2load does for http:// by default.
function h2loadArgs(scenario, port, { seconds = null, requests = null, connections = null } = {}) {
  const { request } = scenario;
  const count = connections ?? scenario.connections;
  const args = ['-c', String(count), '-m', String(scenario.streams), '-t', '1'];
  // Over TLS, h2 only: h2load would otherwise take HTTP/1.1 from a server that does not select h2, and measure it.
  if (request.tls) args.push('--npn-list', 'h2');
  if (requests !== null) args.push('-n', String(Math.max(requests, count)));
  else args.push('-D', String(timedSeconds(seconds)));
  for (const [name, value] of Object.entries(request.headers)) args.push('-H', `${name.toLowerCase()}: ${value}`);
  if (request.bodyFile) args.push('-d', request.bodyFile);
  args.push(`${request.tls ? 'https' : 'http'}://127.0.0.1:${port}${request.path}`);
  return args;
}

// How long a timed h2load run of `seconds` lasts.
function timedSeconds(seconds) {
  return Math.max(seconds, MIN_TIMED_SECONDS);
}

// The command that runs h2load with args: [program, ...arguments], through sh (SHELL_WRAPPER).
function h2loadCommand(args) {
  return ['sh', '-c', SHELL_WRAPPER, 'h2load', ...args];
}

// Microseconds in an h2load duration ("632us", "17.66ms", "1.08s").
function durationUs(text) {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!match) throw new Error(`not an h2load duration: ${text}`);
  return Number(match[1]) * { us: 1, ms: 1e3, s: 1e6 }[match[2]];
}

// The lwload-shaped result of h2load's report (stdout, with the wrapper's stat line at its end):
// { requests, rps, duration_s, errors, non2xx, client_cpu_s, bytes_read, latency_us }. Throws when the report
// lacks a line it needs (h2load failed before measuring).
function parseH2load(stdout) {
  const line = (pattern, what) => {
    const match = pattern.exec(stdout);
    if (!match) throw new Error(`h2load printed no ${what} line`);
    return match;
  };
  const finished = line(/^finished in (\S+), ([\d.]+) req\/s/m, 'finished');
  const counts = line(
    /^requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/m,
    'requests');
  const statuses = line(/^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/m, 'status codes');
  const traffic = line(/^traffic: \S+ \((\d+)\) total/m, 'traffic');
  const times = line(/^time for request:\s+(\S+)\s+(\S+)\s+(\S+)/m, 'time for request');
  // h2load names the protocol it spoke: h2 (by ALPN), h2c (prior knowledge); anything else is not HTTP/2.
  const protocol = /^Application protocol: (\S+)/m.exec(stdout);
  if (protocol && protocol[1] !== 'h2' && protocol[1] !== 'h2c') {
    throw new Error(`h2load spoke ${protocol[1]}, not HTTP/2`);
  }
  const statLine = stdout.trim().split('\n').pop();
  let clientCpuSeconds = null;
  try {
    const stat = parseStat(statLine);
    clientCpuSeconds = (stat.cutime + stat.cstime) / clockTicksPerSecond();
  } catch {
    // Run without the wrapper: no CPU time.
  }
  return {
    requests: Number(counts[1]),
    rps: Number(finished[2]),
    duration_s: durationUs(finished[1]) / 1e6,
    errors: { failed: Number(counts[2]), errored: Number(counts[3]), timeout: Number(counts[4]) },
    non2xx: Number(statuses[2]) + Number(statuses[3]) + Number(statuses[4]),
    client_cpu_s: clientCpuSeconds,
    bytes_read: Number(traffic[1]),
    latency_us: { p50: durationUs(times[3]), p99: null, max: durationUs(times[2]) },
  };
}

module.exports = { MIN_TIMED_SECONDS, h2loadArgs, h2loadCommand, parseH2load, durationUs, timedSeconds };
