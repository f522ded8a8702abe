'use strict';
// npm run soak [-- --short] [--duration <s>] [--server <name>]: runs well-behaved verifying clients side by side
// with hostile ones against each loopwire server (the Node addon, the native server on epoll and on libuv),
// all on 127.0.0.1, and exits non-zero on any wrong or missing answer, on RSS growth past a bound, or on open
// fds that do not return to their baseline. See docs/soak.md.

const { parseOptions, UsageError } = require('./options.js');
const { buildFor } = require('./build.js');
const { SERVERS } = require('./servers.js');
const { runSession } = require('./session.js');
const { judge } = require('./verdict.js');
const { printSession } = require('./report.js');
const { cleanUpEverything } = require('./lib/cleanup.js');

// Time a session may take beyond its load: start, warm-up and baseline, the clients' stop grace, the fd settle
// wait and the server's stop, each at its limit, and some slack. Past the run's deadline everything is killed.
const SESSION_OVERHEAD_MS = 75_000;

function armDeadline(ms) {
  const timer = setTimeout(() => {
    console.error(`\nsoak: FAIL: the run passed its deadline of ${Math.round(ms / 1000)} s; killing everything`);
    cleanUpEverything();
    process.exit(1);
  }, ms);
  return () => clearTimeout(timer);
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    return 2;
  }
  if (options.help) {
    console.log(options.usage);
    return 0;
  }
  buildFor(options.servers, SERVERS);
  const seconds = options.durationMs / 1000;
  console.log(`soak: ${options.servers.join(', ')}; ${seconds} s of load each; idle waves of ${options.idleWaveSize}` +
    `${options.idleWaveSize < options.wantedIdleWaveSize ? ` (capped by ulimit -n from ${options.wantedIdleWaveSize})` : ''}`);
  const disarm = armDeadline(options.servers.length * (options.durationMs + SESSION_OVERHEAD_MS));
  const failures = [];
  for (const name of options.servers) {
    console.log(`\n== ${name}: starting`);
    let result;
    try {
      result = await runSession(name, SERVERS[name], options);
    } catch (error) {
      result = { name, startError: error.message };
    }
    const reasons = judge(result);
    printSession(result, reasons);
    failures.push(...reasons.map((reason) => `${name}: ${reason}`));
  }
  disarm();
  console.log(`\nsoak: ${failures.length === 0 ? 'PASS' : 'FAIL'} (${options.servers.join(', ')})`);
  for (const failure of failures) console.log(`  - ${failure}`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => {
  cleanUpEverything();
  process.exit(code);
}, (error) => {
  console.error(`soak: ${error.stack}`);
  cleanUpEverything();
  process.exit(1);
});
