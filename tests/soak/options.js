'use strict';
// The command line of `npm run soak`: see docs/soak.md.
//
//   --short            about 30 s of load per server, on the addon and native-epoll (CI); idle waves of 500
//   --duration <s>     seconds of load per server (default 180, or 30 with --short)
//   --server <name>    addon, native-epoll or native-libuv; repeat it (or give a comma list) for several
//   --help

const { SERVERS } = require('./servers.js');
const { cappedWaveSize } = require('./lib/fdLimit.js');

const FULL = { durationS: 180, servers: ['addon', 'native-epoll', 'native-libuv'], idleWaveSize: 5000 };
const SHORT = { durationS: 30, servers: ['addon', 'native-epoll'], idleWaveSize: 500 };

const USAGE = `usage: npm run soak -- [--short] [--duration <seconds>] [--server ${Object.keys(SERVERS).join('|')}]...`;

class UsageError extends Error {}

function parseOptions(argv) {
  let preset = FULL;
  let durationS = null;
  const servers = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--short') preset = SHORT;
    else if (arg === '--help' || arg === '-h') return { help: true, usage: USAGE };
    else if (arg === '--duration') {
      durationS = Number(argv[++i]);
      if (!(durationS > 0)) throw new UsageError(`--duration needs a positive number of seconds\n${USAGE}`);
    } else if (arg === '--server') {
      for (const name of String(argv[++i] ?? '').split(',')) {
        if (!SERVERS[name]) throw new UsageError(`unknown server ${JSON.stringify(name)}\n${USAGE}`);
        servers.push(name);
      }
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
    }
  }
  return {
    short: preset === SHORT,
    durationMs: (durationS ?? preset.durationS) * 1000,
    servers: servers.length > 0 ? servers : preset.servers,
    idleWaveSize: cappedWaveSize(preset.idleWaveSize),
    wantedIdleWaveSize: preset.idleWaveSize,
  };
}

module.exports = { parseOptions, UsageError, USAGE };
