'use strict';
// socket.io, the third arm of cluster/fanout: socket.io with its Redis adapter (@socket.io/redis-adapter over
// ioredis), as socket.io's users scale out (bench/scenarios/js/cluster/socketio-node.js). Like uWebSockets.js
// (uws.js), never a dependency of loopwire: the runner installs the packages into its own cache the first time an
// arm needs them, so that `--vs socketio` works on a fresh clone.
const path = require('node:path');
const { CACHE_ROOT } = require('./build');
const { ensurePackages } = require('./npmcache');

const SOCKETIO_PACKAGES = ['socket.io@4.8.1', '@socket.io/redis-adapter@8.3.0', 'ioredis@6.0.0'];
const INSTALL_DIR = path.join(CACHE_ROOT, 'socketio-4.8.1');
// The socket.io package's folder: what the socket.io cluster node is given as --module (the adapter and ioredis
// are beside it).
const SOCKETIO_MODULE = path.join(INSTALL_DIR, 'node_modules', 'socket.io');

// Installs the packages into the cache unless they are there. Returns null on success, else what went wrong.
function ensureSocketIoInstalled(note) {
  return ensurePackages({ dir: INSTALL_DIR, packages: SOCKETIO_PACKAGES, note });
}

module.exports = { SOCKETIO_PACKAGES, SOCKETIO_MODULE, ensureSocketIoInstalled };
