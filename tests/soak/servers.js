'use strict';
// The servers under test: how to start each (on port 0; each prints "listening on <port>") and how far its
// memory may grow during a soak.

const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const NATIVE_SERVER = path.join(ROOT, 'build', 'tests', 'soak', 'soak_server');
const MiB = 1024 * 1024;

// How far RSS may rise above its baseline (taken after warm-up) at any moment of the run. The load itself needs a
// few MiB: a dozen verifying connections, echo bodies of up to 1 MiB held twice (received, then sent), 64 KiB
// stream pieces, one connection buffer per idle connection. The addon's bound is larger because V8 grows its
// heap in steps and gives memory back late. A server that buffers without bound (for a peer that does not read)
// passes either within seconds.
const ADDON_RSS_GROWTH_LIMIT = 64 * MiB;
const NATIVE_RSS_GROWTH_LIMIT = 32 * MiB;

const SERVERS = {
  'addon': {
    command: process.execPath,
    args: [path.join(__dirname, 'server.js')],
    native: false,
    rssGrowthLimit: ADDON_RSS_GROWTH_LIMIT,
  },
  'native-epoll': {
    command: NATIVE_SERVER,
    args: ['--port', '0', '--backend', 'epoll'],
    native: true,
    rssGrowthLimit: NATIVE_RSS_GROWTH_LIMIT,
  },
  'native-libuv': {
    command: NATIVE_SERVER,
    args: ['--port', '0', '--backend', 'libuv'],
    native: true,
    rssGrowthLimit: NATIVE_RSS_GROWTH_LIMIT,
  },
};

module.exports = { SERVERS, ROOT, MiB };
