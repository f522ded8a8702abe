'use strict';
// Building the scenario servers and lwload with CMake, and the build cache.
//
// A commit is built once: its build directory is ~/.cache/loopwire-bench/<sha>/build (or $LW_BENCH_CACHE), and
// a stamp file written after a successful build makes every later run reuse it without checking the commit
// out again for building. The working tree (WORKTREE) has one build directory per checkout path, rebuilt
// incrementally by every run. ccache is used when installed (the root CMakeLists.txt picks it up).
//
// An implementation may also have a prepare step (the addon's scripts/build-addon.js); its outputs are cached
// per commit the same way.
//
// A commit older than bench/scenarios/ gets the runner's scenario sources copied into its worktree (and its
// cache key says so), so that the first A/B after the scenarios landed, and any older base, still builds.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { RUNNER_ROOT } = require('./git');

const CACHE_ROOT = process.env.LW_BENCH_CACHE || path.join(os.homedir(), '.cache', 'loopwire-bench');
// Bump when CONFIGURE_FLAGS or the overlay change, so that builds made the old way are not reused.
const BUILD_RECIPE = 1;
const CONFIGURE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DLW_BUILD_TESTS=OFF',
  '-DLW_BUILD_EXAMPLES=OFF',
  '-DLW_BUILD_BENCH=ON',
];
// How much of a failed build's output the error shows.
const LOG_TAIL_LINES = 40;

const SCENARIOS_DIR = path.join('bench', 'scenarios');
const SCENARIOS_SUBDIRECTORY = 'add_subdirectory(scenarios)';

function hashOf(text) {
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function hasNinja() {
  return spawnSync('ninja', ['--version'], { stdio: 'ignore' }).status === 0;
}

function runLogged(command, args, logFile, cwd = undefined) {
  fs.appendFileSync(logFile, `\n$ ${command} ${args.join(' ')}\n`);
  const out = fs.openSync(logFile, 'a');
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (result.status !== 0) {
    const tail = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
    throw new Error(`${command} ${args.slice(0, 4).join(' ')}... failed (full log: ${logFile}):\n${tail}`);
  }
}

// Configures buildDir from source (once) and builds targets; the output goes to buildDir/../build.log.
function cmakeBuild({ source, buildDir, targets }) {
  fs.mkdirSync(buildDir, { recursive: true });
  const logFile = path.join(path.dirname(buildDir), 'build.log');
  if (!fs.existsSync(path.join(buildDir, 'CMakeCache.txt'))) {
    const generator = hasNinja() ? ['-G', 'Ninja'] : [];
    runLogged('cmake', ['-S', source, '-B', buildDir, ...generator, ...CONFIGURE_FLAGS], logFile);
  }
  if (targets.length > 0) runLogged('cmake', ['--build', buildDir, '--target', ...targets], logFile);
}

// Every file under dir, as "relative path\0content" in a stable order, for hashing.
function treeDigest(dir) {
  const parts = [];
  const walk = (relative) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name))) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else parts.push(`${child}\0${fs.readFileSync(path.join(dir, child))}`);
    }
  };
  walk('');
  return hashOf(parts.join('\0'));
}

// Gives a worktree without bench/scenarios the runner's. Returns null when it has its own, else the digest of
// the sources copied in. Throws when the commit has no bench/ at all (it predates lwload).
function ensureScenarioSources(worktree) {
  const benchLists = path.join(worktree, 'bench', 'CMakeLists.txt');
  if (fs.existsSync(path.join(worktree, SCENARIOS_DIR, 'CMakeLists.txt'))) return null;
  if (!fs.existsSync(benchLists)) {
    throw new Error(`${worktree} has no bench/CMakeLists.txt: the commit predates lwload and cannot be measured`);
  }
  const runnerScenarios = path.join(RUNNER_ROOT, SCENARIOS_DIR);
  fs.cpSync(runnerScenarios, path.join(worktree, SCENARIOS_DIR), { recursive: true });
  if (!fs.readFileSync(benchLists, 'utf8').includes(SCENARIOS_SUBDIRECTORY)) {
    fs.appendFileSync(benchLists, `\nif(TARGET loopwire)\n  ${SCENARIOS_SUBDIRECTORY}\nendif()\n`);
  }
  return treeDigest(runnerScenarios);
}

// Builds targets of the commit checked out at worktree, or reuses the cached build. Returns
// { buildDir, cached, overlay }.
function buildCommit({ sha, worktree, targets }) {
  const overlay = ensureScenarioSources(worktree);
  if (targets.length === 0) return { buildDir: null, cached: false, overlay };
  const key = overlay === null ? sha : `${sha}+scenarios-${overlay}`;
  const dir = path.join(CACHE_ROOT, key);
  const buildDir = path.join(dir, 'build');
  const stamp = path.join(dir, `built-recipe-${BUILD_RECIPE}-${hashOf(targets.join(' '))}`);
  if (fs.existsSync(stamp)) return { buildDir, cached: true, overlay };
  // A build dir without a stamp is a build that did not finish, or one made from another worktree path.
  fs.rmSync(buildDir, { recursive: true, force: true });
  cmakeBuild({ source: worktree, buildDir, targets });
  fs.writeFileSync(stamp, `${new Date().toISOString()} ${targets.join(' ')}\n`);
  return { buildDir, cached: false, overlay };
}

// Runs an implementation's prepare step (argv, run in the checkout; outputs, the folders it writes there) in the
// worktree of commit sha, or restores its outputs from the cache. Returns false when the step failed or the
// commit has no such script (the arm is then skipped by its `requires` check), true otherwise.
function prepareCommit({ sha, worktree, argv, outputs }) {
  const dir = path.join(CACHE_ROOT, sha, `prepared-${hashOf(argv.join(' ').replaceAll(worktree, '<root>'))}`);
  if (!fs.existsSync(path.join(dir, 'done'))) {
    const script = argv.find((part) => part.startsWith(worktree));
    if (script && !fs.existsSync(script)) return false;
    fs.mkdirSync(dir, { recursive: true });
    try {
      runLogged(argv[0], argv.slice(1), path.join(dir, 'prepare.log'), worktree);
    } catch {
      return false;
    }
    for (const output of outputs) {
      fs.cpSync(path.join(worktree, output), path.join(dir, output), { recursive: true });
    }
    fs.writeFileSync(path.join(dir, 'done'), `${new Date().toISOString()}\n`);
    return true;
  }
  for (const output of outputs) {
    fs.cpSync(path.join(dir, output), path.join(worktree, output), { recursive: true });
  }
  return true;
}

// The build directory of the working tree at root (one per checkout path).
function worktreeBuildDir(root = RUNNER_ROOT) {
  return path.join(CACHE_ROOT, `worktree-${hashOf(path.resolve(root))}`, 'build');
}

// Builds targets of the working tree at root, incrementally. Returns { buildDir }.
function buildWorkingTree({ root = RUNNER_ROOT, targets }) {
  const buildDir = worktreeBuildDir(root);
  cmakeBuild({ source: root, buildDir, targets });
  return { buildDir };
}

module.exports = { CACHE_ROOT, CONFIGURE_FLAGS, buildCommit, buildWorkingTree, prepareCommit, worktreeBuildDir,
  treeDigest };
