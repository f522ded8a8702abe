'use strict';
// Turning the settings into two ready arms and an lwload binary: resolving refs, checking commits out into
// temporary worktrees under tmpDir, building what each arm's implementation needs (cached per commit), building
// lwload from the runner's own checkout, so that both arms are loaded by the same client, and making the TLS key
// and certificate under tmpDir when a chosen scenario needs them (the same files for both arms).
// cleanupWorktrees() removes every worktree made here; it is synchronous so that it can run on process exit.
const fs = require('node:fs');
const path = require('node:path');
const { WORKTREE } = require('./args');
const { spawnSync } = require('node:child_process');
const { describeArm, fill } = require('./arms');
const { buildCommit, buildWorkingTree, prepareCommit } = require('./build');
const { makeTlsFiles, needsTls } = require('./tls');
const { ensureUwsInstalled } = require('./uws');
const { ensureSocketIoInstalled } = require('./socketio');
const { installNode } = require('../../scripts/lib/node-versions');
const git = require('./git');

const madeWorktrees = [];

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

  if ([base, head].some((arm) => arm.impl === 'uws')) {
    const problem = ensureUwsInstalled(note);
    if (problem !== null) note(`uwebsockets could not be installed (${problem}); its scenarios will be skipped`);
  }
  if ([base, head].some((arm) => arm.impl === 'socketio')) {
    const problem = ensureSocketIoInstalled(note);
    if (problem !== null) note(`socket.io could not be installed (${problem}); its scenarios will be skipped`);
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
  for (const arm of [base, head]) {
    arm.tls = tls;
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
