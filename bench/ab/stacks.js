'use strict';
// The JavaScript stacks the static/* scenarios compare loopwire's static files with, as their users run them:
//   express-static: express.static on ultimate-express, the Express API on uWebSockets.js. ultimate-express takes
//     uWebSockets.js from a git repository, which the runner cannot fetch: npm's overrides put the npm repack of the
//     same binaries (uwebsockets, as bench/ab/uws.js installs for --vs uws) in its place. 2.0.17 is the last release
//     that runs on Node 20 (2.1 and up need 22), the newest Node uWebSockets.js's binaries load on here.
//   fastify-static: @fastify/static on fastify, on node:http. 9.3.0 rather than 10: 10's dependencies need Node 22.
//   express-compression (the compress/* scenarios): the compression middleware on the same ultimate-express, as an
//     Express application codes its dynamic answers (its defaults: gzip at zlib's level 6). A folder of its own,
//     named after both pins, rather than express-static's: each stack's folder is installed whole, by one npm install.
// Never dependencies of loopwire: installed into the runner's cache (npmcache.js) the first time an arm needs them.
const path = require('node:path');
const { CACHE_ROOT } = require('./build');
const { ensurePackages } = require('./npmcache');
const { UWS_PACKAGE } = require('./uws');

const ULTIMATE_EXPRESS_PACKAGES = ['ultimate-express@2.0.17'];
const ULTIMATE_EXPRESS_OVERRIDES = { 'uWebSockets.js': `npm:${UWS_PACKAGE}` };
const ULTIMATE_EXPRESS_DIR = path.join(CACHE_ROOT, 'ultimate-express-2.0.17');
// What the express-static server is given as --module ({ultimateExpress} in the scenario table).
const ULTIMATE_EXPRESS_MODULE = path.join(ULTIMATE_EXPRESS_DIR, 'node_modules', 'ultimate-express');

const FASTIFY_PACKAGES = ['fastify@5.12.8', '@fastify/static@9.3.0'];
const FASTIFY_DIR = path.join(CACHE_ROOT, 'fastify-5.12.8');
// What the fastify-static server is given as --module ({fastify}); @fastify/static is beside it.
const FASTIFY_MODULE = path.join(FASTIFY_DIR, 'node_modules', 'fastify');

const EXPRESS_COMPRESSION_PACKAGES = [...ULTIMATE_EXPRESS_PACKAGES, 'compression@1.8.2'];
const EXPRESS_COMPRESSION_DIR = path.join(CACHE_ROOT, 'ultimate-express-2.0.17-compression-1.8.2');
// What the express-compression server is given as --module ({expressCompression}); compression is beside it.
const EXPRESS_COMPRESSION_MODULE = path.join(EXPRESS_COMPRESSION_DIR, 'node_modules', 'ultimate-express');

// Each installs its stack unless it is there. Returns null on success, else what went wrong.
function ensureUltimateExpressInstalled(note) {
  return ensurePackages({ dir: ULTIMATE_EXPRESS_DIR, packages: ULTIMATE_EXPRESS_PACKAGES,
    overrides: ULTIMATE_EXPRESS_OVERRIDES, note });
}

function ensureFastifyInstalled(note) {
  return ensurePackages({ dir: FASTIFY_DIR, packages: FASTIFY_PACKAGES, note });
}

function ensureExpressCompressionInstalled(note) {
  return ensurePackages({ dir: EXPRESS_COMPRESSION_DIR, packages: EXPRESS_COMPRESSION_PACKAGES,
    overrides: ULTIMATE_EXPRESS_OVERRIDES, note });
}

module.exports = { ULTIMATE_EXPRESS_PACKAGES, ULTIMATE_EXPRESS_OVERRIDES, ULTIMATE_EXPRESS_MODULE, FASTIFY_PACKAGES,
  FASTIFY_MODULE, EXPRESS_COMPRESSION_PACKAGES, EXPRESS_COMPRESSION_MODULE, ensureUltimateExpressInstalled,
  ensureFastifyInstalled, ensureExpressCompressionInstalled };
