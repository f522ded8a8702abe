'use strict';
// socket.io, the third arm of cluster/fanout: socket.io with its Redis adapter (@socket.io/redis-adapter over
// ioredis), as socket.io's users scale out (bench/scenarios/js/cluster/socketio-node.js). Like uWebSockets.js
// (uws.js), never a dependency of loopwire: the runner installs the packages into its own cache the first time an
// arm needs them, so that `--vs socketio` works on a fresh clone.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { CACHE_ROOT } = require('./build');

const SOCKETIO_PACKAGES = ['socket.io@4.8.1', '@socket.io/redis-adapter@8.3.0', 'ioredis@6.0.0'];
const INSTALL_DIR = path.join(CACHE_ROOT, 'socketio-4.8.1');
// The socket.io package's folder: what the socket.io cluster node is given as --module (the adapter and ioredis
// are beside it).
const SOCKETIO_MODULE = path.join(INSTALL_DIR, 'node_modules', 'socket.io');

const installed = (spec) => {
  const name = spec.slice(0, spec.lastIndexOf('@'));
  return fs.existsSync(path.join(INSTALL_DIR, 'node_modules', name, 'package.json'));
};

// Installs the packages into the cache unless they are there. Returns null on success, else what went wrong.
function ensureSocketIoInstalled(note) {
  const missing = SOCKETIO_PACKAGES.filter((spec) => !installed(spec));
  if (missing.length === 0) return null;
  note(`installing ${missing.join(', ')} into ${INSTALL_DIR} (once)`);
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  const result = spawnSync('npm', ['install', '--prefix', INSTALL_DIR, '--no-save', '--no-package-lock', '--no-audit',
    '--no-fund', ...SOCKETIO_PACKAGES], { encoding: 'utf8' });
  if (result.status === 0 && missing.every(installed)) return null;
  return (result.error?.message ?? result.stderr.trim().split('\n').pop()) || `npm exit status ${result.status}`;
}

module.exports = { SOCKETIO_PACKAGES, SOCKETIO_MODULE, ensureSocketIoInstalled };
