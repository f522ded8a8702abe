'use strict';
// --instructions: the instructions a server executes per request, counted by valgrind's callgrind. Unlike
// requests per second this count hardly depends on the machine's load, so it can judge changes far below the
// noise band (one allocation less per request).
//
// Method: the server runs under callgrind twice, once for requests[0] requests and once for requests[1], each
// time from start to exit (SIGTERM; callgrind writes its totals on the way out). Startup, connection setup and
// shutdown are the same in both runs, so they cancel in
//     instructions per request = (Ir(requests[1]) - Ir(requests[0])) / (requests[1] - requests[0]).
// The load uses few connections (1 by default) so that every request takes the same path through the loop:
// with many, how many events one epoll_wait returns varies from run to run, and the count with it.
// A Node server gets fixed V8 seeds (seededArgv): V8 draws its hash seed at random at startup and then searches for
// primes derived from it, a few million instructions that vary from one start to the next (8 to 16 million for
// Node 20), which did not cancel and moved the count of a WebSocket echo by up to 200 instructions per message.
const fs = require('node:fs');
const path = require('node:path');
const { startServer, withPort } = require('./server');
const { loadArgs, loadTool, runLoad } = require('./load');

// Request counts of the two runs.
const DEFAULT_REQUESTS = [10000, 20000];
const DEFAULT_CONNECTIONS = 1;
// A server under callgrind starts and stops some 50 times slower.
const VALGRIND_START_TIMEOUT_MS = 120000;
const VALGRIND_STOP_TIMEOUT_MS = 60000;
// Generous: a request under callgrind costs well under a millisecond on one connection. A scenario whose requests
// cost far more (a MiB encrypted under callgrind takes some 0.2 s) says how long in callgrindSecondsPerRequest.
const VALGRIND_SECONDS_PER_REQUEST = 0.01;

// Fixed seeds for V8's hash seed and random generator, the same for every run: startup is then the same work each
// time (to some ten thousand instructions, where a random seed made it differ by millions).
const NODE_SEED_FLAGS = ['--hash-seed=1213897313', '--random-seed=1213897313'];

// argv with NODE_SEED_FLAGS after the executable when it runs Node (the executable running the runner, or one named
// node); any other argv unchanged.
function seededArgv(argv) {
  const isNode = argv[0] === process.execPath || /^node(\d+)?$/.test(path.basename(argv[0] ?? ''));
  return isNode ? [argv[0], ...NODE_SEED_FLAGS, ...argv.slice(1)] : argv;
}

// The total instruction count of a callgrind output file: its "totals:" line (or "summary:" in older files).
function parseCallgrindTotal(text) {
  const match = /^totals:\s+(\d+)/m.exec(text) ?? /^summary:\s+(\d+)/m.exec(text);
  if (!match) throw new Error('no totals line in the callgrind output');
  return Number(match[1]);
}

function perRequest(runs) {
  const [first, second] = runs;
  return (second.instructions - first.instructions) / (second.requests - first.requests);
}

// The total of every callgrind file of one run: a server that execs (a --vs command run through sh) or forks
// leaves one file per process.
function runTotal(outDir, prefix) {
  const files = fs.readdirSync(outDir).filter((name) => name.startsWith(prefix));
  if (files.length === 0) throw new Error(`callgrind wrote no ${prefix}* file`);
  return files.reduce((sum, name) => sum + parseCallgrindTotal(fs.readFileSync(path.join(outDir, name), 'utf8')), 0);
}

// Runs server (from arms.serverFor) under callgrind for each request count. Returns
// { perRequest, runs: [{ requests, instructions }] }.
async function countInstructions({ server, scenario, lwload, cpus, outDir, label, requests = DEFAULT_REQUESTS,
  connections = DEFAULT_CONNECTIONS }) {
  const runs = [];
  for (const count of requests) {
    const prefix = `callgrind.${label}.${count}.`;
    const { argv, fixedPort } = await withPort(server);
    const valgrind = ['valgrind', '--tool=callgrind', '--trace-children=yes',
      `--callgrind-out-file=${path.join(outDir, `${prefix}%p.out`)}`];
    const running = await startServer({ argv: [...valgrind, ...seededArgv(argv)], cwd: server.cwd, cpu: cpus.server, fixedPort,
      label: `${label} (callgrind)`, startTimeoutMs: VALGRIND_START_TIMEOUT_MS });
    try {
      const result = await runLoad({ lwload, tool: loadTool(scenario), cpu: cpus.load,
        args: loadArgs(scenario, running.port,
          { requests: count, connections, splitPort: running.splitPort, load: server.load }),
        expectedSeconds: count * (scenario.callgrindSecondsPerRequest ?? VALGRIND_SECONDS_PER_REQUEST) });
      if (result.requests !== count) throw new Error(`${label}: ${result.requests} of ${count} requests answered`);
    } finally {
      await running.stop(VALGRIND_STOP_TIMEOUT_MS);
    }
    runs.push({ requests: count, instructions: runTotal(outDir, prefix) });
  }
  return { perRequest: perRequest(runs), runs };
}

module.exports = { DEFAULT_REQUESTS, DEFAULT_CONNECTIONS, NODE_SEED_FLAGS, VALGRIND_SECONDS_PER_REQUEST,
  parseCallgrindTotal, perRequest, seededArgv, countInstructions };
