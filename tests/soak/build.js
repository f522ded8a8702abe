'use strict';
// Builds what the chosen servers need: the Node addon (incrementally) and the native soak_server (always asked
// of the build, which does nothing when it is up to date). Build output is shown only when a build fails.

const { spawnSync } = require('node:child_process');
const { ROOT } = require('./servers.js');

function runBuildStep(what, command, args) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    throw new Error(`building ${what} failed (${result.error?.message ?? `exit status ${result.status}`})`);
  }
  console.log(`soak: ${what} ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** Builds for the servers given by name (see servers.js); throws when a build fails. */
function buildFor(serverNames, servers) {
  if (serverNames.some((name) => !servers[name].native)) {
    runBuildStep('the Node addon', process.execPath, ['scripts/build-addon.js', '--quiet']);
  }
  if (serverNames.some((name) => servers[name].native)) {
    runBuildStep('soak_server', 'bash', ['scripts/build.sh', 'default', '--target', 'soak_server']);
  }
}

module.exports = { buildFor };
