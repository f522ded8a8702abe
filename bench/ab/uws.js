'use strict';
// The uWebSockets.js the comparison runs against: the npm package uwebsockets@3.0.6, a repack of its official
// binaries. It is never a dependency of loopwire: the runner installs it into its own cache the first time an
// arm needs it (npm, from the registry), so that `--vs uws` works on a fresh clone.
const path = require('node:path');
const { CACHE_ROOT } = require('./build');
const { ensurePackages } = require('./npmcache');

const UWS_PACKAGE = 'uwebsockets@3.0.6';
// The Redis client of the glue cluster/fanout's uWebSockets.js arm runs on (scenarios/js/cluster/uws-glue-node.js),
// installed beside it.
const GLUE_PACKAGE = 'ioredis@6.0.0';
const INSTALL_DIR = path.join(CACHE_ROOT, 'uwebsockets-3.0.6');
// The package's folder: what the uws scenario servers are given as --module.
const UWS_MODULE = path.join(INSTALL_DIR, 'node_modules', 'uwebsockets');

// Installs the packages into the cache unless they are there. Returns null on success, else what went wrong.
function ensureUwsInstalled(note) {
  return ensurePackages({ dir: INSTALL_DIR, packages: [UWS_PACKAGE, GLUE_PACKAGE], note });
}

module.exports = { UWS_PACKAGE, UWS_MODULE, ensureUwsInstalled };
