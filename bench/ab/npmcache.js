'use strict';
// Packages the runner installs into its own cache (bench/ab/build.js's CACHE_ROOT) the first time an arm needs
// them, with npm from the registry: the other servers a comparison runs against (uWebSockets.js, socket.io, the
// static-file stacks), which are never dependencies of loopwire, so that `--vs <them>` works on a fresh clone.
// Each stack has a folder of its own there, named after its pinned version, so that changing a pin installs anew.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// The name of a spec: "ioredis@6.0.0" -> "ioredis", "@fastify/static@8.3.0" -> "@fastify/static".
const packageName = (spec) => spec.slice(0, spec.lastIndexOf('@') > 0 ? spec.lastIndexOf('@') : spec.length);

// Whether every package of packages is installed in dir.
function installedIn(dir, packages) {
  return packages.every((spec) => fs.existsSync(path.join(dir, 'node_modules', packageName(spec), 'package.json')));
}

// Installs packages (pinned specs) into dir unless they are all there. overrides, when given, go into dir's
// package.json as npm's "overrides" (a dependency replaced wherever it occurs: ultimate-express's uWebSockets.js,
// which it takes from a git repository, by the npm repack the runner uses). Returns null on success, else what
// went wrong.
function ensurePackages({ dir, packages, overrides = null, note }) {
  const missing = packages.filter((spec) => !installedIn(dir, [spec]));
  if (missing.length === 0) return null;
  note(`installing ${missing.join(', ')} into ${dir} (once)`);
  fs.mkdirSync(dir, { recursive: true });
  if (overrides) {
    fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ private: true, overrides }, null, 2)}\n`);
  }
  const result = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit',
    '--no-fund', ...packages], { encoding: 'utf8' });
  if (result.status === 0 && installedIn(dir, packages)) return null;
  return (result.error?.message ?? result.stderr.trim().split('\n').pop()) || `npm exit status ${result.status}`;
}

module.exports = { packageName, installedIn, ensurePackages };
