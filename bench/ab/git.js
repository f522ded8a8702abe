'use strict';
// The git operations of the runner: resolving refs, and checking commits out into temporary worktrees that are
// removed when the run ends. Nothing here changes the main working tree, its index or its branches: status is
// read with --no-optional-locks, and worktrees are detached.
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

// The checkout the runner itself lives in.
const RUNNER_ROOT = require('node:path').resolve(__dirname, '../..');

function git(args, cwd = RUNNER_ROOT) {
  const options = { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] };
  return execFileSync('git', ['--no-optional-locks', ...args], options).trim();
}

// The full hash of the commit ref names; throws a readable error for an unknown ref.
function resolveCommit(ref) {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`not a commit in ${RUNNER_ROOT}: ${ref}`);
  }
}

function subjectOf(sha) {
  return git(['log', '-1', '--format=%s', sha]);
}

// True when the working tree has changes that HEAD does not (tracked or untracked, ignored files aside).
function hasUncommittedChanges(root = RUNNER_ROOT) {
  return git(['status', '--porcelain'], root) !== '';
}

function addWorktree(sha, dir) {
  git(['worktree', 'add', '--detach', '--quiet', dir, sha]);
}

function removeWorktree(dir) {
  try {
    git(['worktree', 'remove', '--force', dir]);
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    git(['worktree', 'prune']);
  }
}

module.exports = { RUNNER_ROOT, resolveCommit, subjectOf, hasUncommittedChanges, addWorktree, removeWorktree };
