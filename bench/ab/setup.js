'use strict';
// Turning the settings into two ready arms and an lwload binary: resolving refs, checking commits out into
// temporary worktrees under tmpDir, building what each arm's implementation needs (cached per commit), building
// lwload from the runner's own checkout, so that both arms are loaded by the same client, installing the npm
// stacks an arm runs on into the runner's cache, and making under tmpDir the TLS key and certificate and the
// document root when a chosen scenario needs them (the same files for both arms).
// cleanupWorktrees() removes every worktree made here; it is synchronous so that it can run on process exit.
const fs = require('node:fs');
const path = require('node:path');
const { WORKTREE } = require('./args');
const { spawnSync } = require('node:child_process');
const { describeArm, fill, programPath } = require('./arms');
const { buildCommit, buildWorkingTree, prepareCommit } = require('./build');
const { makeTlsFiles, needsTls } = require('./tls');
const { docrootFiles, makeDocroot } = require('./docroot');
const { ensureUwsInstalled } = require('./uws');
const { ensureSocketIoInstalled } = require('./socketio');
const { ensureUltimateExpressInstalled, ensureFastifyInstalled, ensureExpressCompressionInstalled } =
  require('./stacks');
const { installNode } = require('../../scripts/lib/node-versions');
const git = require('./git');

const madeWorktrees = [];

// The npm stacks the runner installs into its cache, by implementation, and what each is called in a note.
const INSTALLERS = {
  uws: { what: 'uwebsockets', ensure: ensureUwsInstalled },
  socketio: { what: 'socket.io', ensure: ensureSocketIoInstalled },
  'express-static': { what: 'ultimate-express', ensure: ensureUltimateExpressInstalled },
  'fastify-static': { what: 'fastify and @fastify/static', ensure: ensureFastifyInstalled },
  'express-compression': { what: 'ultimate-express and compression', ensure: ensureExpressCompressionInstalled },
};

function armFor(side, ref, impl) {
  if (ref === WORKTREE) {
    return { side, kind: 'worktree', ref, impl, root: git.RUNNER_ROOT, dirty: git.hasUncommittedChanges() };
  }
  const sha = git.resolveCommit(ref);
  return { side, kind: 'commit', ref, sha, impl, subject: git.subjectOf(sha) };
}

// The base arm of --vs: an implementation from the table, run from the runner's checkout, or a command.
function vsArm(vs, implementations) {
  if (implementations[vs]) {
    return { side: 'base', kind: 'worktree', vs: true, ref: WORKTREE, impl: vs, root: git.RUNNER_ROOT, dirty: false };
  }
  return { side: 'base', kind: 'command', command: vs, root: git.RUNNER_ROOT };
}

// The run's TLS files when one of the chosen scenarios needs them, else null; null too when openssl fails (the TLS
// scenarios are then skipped, with the reason noted).
function tlsFilesFor(settings, scenarios, tmpDir, note) {
  const chosen = scenarios.filter((scenario) => settings.scenarios.includes(scenario.name) && scenario.enabled);
  if (!needsTls(chosen)) return null;
  try {
    return makeTlsFiles(path.join(tmpDir, 'tls'));
  } catch (error) {
    note(`${error.message}; the TLS scenarios will be skipped`);
    return null;
  }
}

// The run's document root, with the files of every chosen scenario that has one (docroot.js), else null.
function docrootFor(settings, scenarios, tmpDir) {
  const chosen = scenarios.filter((scenario) => settings.scenarios.includes(scenario.name) && scenario.enabled);
  const files = docrootFiles(chosen);
  return Object.keys(files).length === 0 ? null : makeDocroot(path.join(tmpDir, 'docroot'), files);
}

// The first line a system program prints about its version ("nginx version: nginx/1.22.1"), or null.
function programVersion(implementation) {
  const executable = implementation.program ? programPath(implementation.program) : null;
  if (executable === null) return null;
  const result = spawnSync(executable, implementation.versionArgs ?? ['--version'], { encoding: 'utf8' });
  if (result.error) return null;
  return `${result.stdout}\n${result.stderr}`.split('\n').map((line) => line.trim()).find(Boolean) ?? null;
}

// Resolves, checks out and builds both arms; returns { base, head, lwload }. scenarios: the scenario table.
function prepareArms(settings, { implementations, scenarios = [], tmpDir, note }) {
  const head = armFor('head', settings.head, settings.impl);
  const base = settings.vs !== null ? vsArm(settings.vs, implementations)
    : armFor('base', settings.base, settings.impl);
  const targetsOf = (arm) => (arm.kind === 'command' ? [] : implementations[arm.impl].buildTargets ?? []);

  // The runner's checkout: lwload, and the servers of every arm that runs from it.
  const runnerTargets = new Set(settings.lwload ? [] : ['lwload']);
  for (const arm of [base, head]) {
    if (arm.kind === 'worktree') targetsOf(arm).forEach((target) => runnerTargets.add(target));
  }
  let runnerBuildDir = null;
  if (runnerTargets.size > 0) {
    note(`building ${[...runnerTargets].join(', ')} in the working tree`);
    runnerBuildDir = buildWorkingTree({ targets: [...runnerTargets] }).buildDir;
  }
  for (const arm of [base, head]) {
    if (arm.kind !== 'commit') arm.buildDir = runnerBuildDir;
  }

  // Each commit once, even when base and head are the same one.
  const byCommit = new Map();
  for (const arm of [base, head].filter((a) => a.kind === 'commit')) {
    const key = `${arm.sha} ${targetsOf(arm).join(' ')}`;
    if (!byCommit.has(key)) {
      const worktree = path.join(tmpDir, `${arm.side}-${arm.sha.slice(0, 12)}`);
      git.addWorktree(arm.sha, worktree);
      madeWorktrees.push(worktree);
      note(`building ${arm.sha.slice(0, 10)} (${arm.ref}) for ${arm.side}...`);
      const built = buildCommit({ sha: arm.sha, worktree, targets: targetsOf(arm) });
      if (built.cached) note(`  reused the cached build in ${built.buildDir}`);
      if (built.overlay) note('  (it predates bench/scenarios: the working tree\'s scenario sources were used)');
      byCommit.set(key, { root: worktree, ...built });
    }
    Object.assign(arm, byCommit.get(key));
  }

  for (const impl of new Set([base, head].filter((arm) => arm.kind !== 'command').map((arm) => arm.impl))) {
    const installer = INSTALLERS[impl];
    const problem = installer ? installer.ensure(note) : null;
    if (problem !== null) note(`${installer.what} could not be installed (${problem}); its scenarios will be skipped`);
  }
  if (settings.node !== null) {
    // The JavaScript arms but uws (whose binaries load here only on the runner's Node) run on that line.
    const { node } = installNode(settings.node);
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    for (const arm of [base, head]) {
      if (arm.kind === 'command' || !implementations[arm.impl].followsNodeOption) continue;
      arm.node = node;
      arm.nodeVersion = version;
    }
    note(`JavaScript servers other than uws run on Node ${version} (${node})`);
  }
  const tls = tlsFilesFor(settings, scenarios, tmpDir, note);
  const docroot = docrootFor(settings, scenarios, tmpDir);
  for (const arm of [base, head]) {
    arm.tls = tls;
    arm.docroot = docroot;
    arm.scratch = path.join(tmpDir, 'servers');
    if (arm.kind !== 'command') arm.programVersion = programVersion(implementations[arm.impl]);
    const prepare = arm.kind === 'command' ? null : implementations[arm.impl].prepare;
    if (prepare && !runPrepare(arm, prepare)) {
      note(`${arm.side}: ${prepare.command.slice(1).join(' ')} failed; ${arm.impl} may not load`);
    }
    arm.label = describeArm(arm);
  }
  const lwload = settings.lwload ?? path.join(runnerBuildDir, 'bench', 'lwload');
  if (!fs.existsSync(lwload)) throw new Error(`no lwload at ${lwload}`);
  return { base, head, lwload };
}

// An implementation's prepare step (the addon's build) for one arm; cached per commit.
function runPrepare(arm, prepare) {
  const argv = prepare.command.map((part) => fill(part, arm));
  if (arm.kind === 'commit') return prepareCommit({ sha: arm.sha, worktree: arm.root, argv, outputs: prepare.outputs });
  return spawnSync(argv[0], argv.slice(1), { cwd: arm.root, stdio: ['ignore', 'ignore', 'pipe'] }).status === 0;
}

function cleanupWorktrees() {
  while (madeWorktrees.length > 0) git.removeWorktree(madeWorktrees.pop());
}

module.exports = { prepareArms, cleanupWorktrees };
