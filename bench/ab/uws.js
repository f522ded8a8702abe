'use strict';
// The uWebSockets.js the comparison runs against: the npm package uwebsockets@3.0.6, a repack of its official
// binaries. It is never a dependency of loopwire: the runner installs it into its own cache the first time an
// arm needs it (npm, from the registry), so that `--vs uws` works on a fresh clone.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { CACHE_ROOT } = require('./build');

const UWS_PACKAGE = 'uwebsockets@3.0.6';
// The Redis client of the glue cluster/fanout's uWebSockets.js arm runs on (scenarios/js/cluster/uws-glue-node.js),
// installed beside it.
const GLUE_PACKAGE = 'ioredis@6.0.0';
const INSTALL_DIR = path.join(CACHE_ROOT, 'uwebsockets-3.0.6');
// The package's folder: what the uws scenario servers are given as --module.
const UWS_MODULE = path.join(INSTALL_DIR, 'node_modules', 'uwebsockets');

const installed = (spec) => fs.existsSync(path.join(INSTALL_DIR, 'node_modules', spec.split('@')[0], 'package.json'));

// Installs the packages into the cache unless they are there. Returns null on success, else what went wrong.
function ensureUwsInstalled(note) {
  const missing = [UWS_PACKAGE, GLUE_PACKAGE].filter((spec) => !installed(spec));
  if (missing.length === 0) return null;
  note(`installing ${missing.join(' and ')} into ${INSTALL_DIR} (once)`);
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  const result = spawnSync('npm', ['install', '--prefix', INSTALL_DIR, '--no-save', '--no-package-lock', '--no-audit',
    '--no-fund', UWS_PACKAGE, GLUE_PACKAGE], { encoding: 'utf8' });
  if (result.status === 0 && missing.every(installed)) return null;
  return (result.error?.message ?? result.stderr.trim().split('\n').pop()) || `npm exit status ${result.status}`;
}

module.exports = { UWS_PACKAGE, UWS_MODULE, ensureUwsInstalled };
