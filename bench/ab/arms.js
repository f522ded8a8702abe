'use strict';
// The two sides of a comparison ("arms") and the server each runs for a scenario.
//
// An arm is one of:
//   - a commit: checked out into a temporary worktree and built (build.js), running implementation `impl`;
//   - the working tree (WORKTREE): the checkout the runner lives in, uncommitted changes included;
//   - a command (--vs "<command>"): any server, run through sh from the runner's checkout.
// serverFor() turns an arm and a scenario into the argv to start, or a reason to skip the scenario: a missing
// implementation, a module that does not load (the addon before it builds, `ws` or `uwebsockets` when not
// installed), a C++ server that was not built, or a system program (nginx, h2o) that is not installed. An arm's
// `tls` ({ key, cert }, the run's files from tls.js, or null when the run has none) fills {tlsKey} and {tlsCert};
// its `docroot` (the run's folder from docroot.js, or null) fills {docroot}; its `scratch` is the folder under which
// the configuration files of nginx and h2o are written, one folder per server started (server.js, withPort).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { UWS_MODULE } = require('./uws');
const { SOCKETIO_MODULE } = require('./socketio');
const { ULTIMATE_EXPRESS_MODULE, FASTIFY_MODULE, EXPRESS_COMPRESSION_MODULE } = require('./stacks');

// Arguments every table server gets after its command.
const PORT_ARGS = ['--port', '0'];
// How long `require(module)` may take when checking that a module loads.
const REQUIRE_CHECK_TIMEOUT_MS = 20000;

// Replaces {node} (the arm's Node, arm.node, or the runner's), {root}, {build}, {uws}, {socketio},
// {ultimateExpress}, {fastify}, {expressCompression}, {docroot}, {tlsKey} and {tlsCert} in one argument (or
// configuration template); the last three stay as they are when the arm has no document root or TLS files.
function fill(text, arm) {
  return text.replaceAll('{node}', arm.node ?? process.execPath).replaceAll('{root}', arm.root)
    .replaceAll('{build}', arm.buildDir ?? '{build}').replaceAll('{uws}', UWS_MODULE)
    .replaceAll('{socketio}', SOCKETIO_MODULE)
    .replaceAll('{ultimateExpress}', ULTIMATE_EXPRESS_MODULE).replaceAll('{fastify}', FASTIFY_MODULE)
    .replaceAll('{expressCompression}', EXPRESS_COMPRESSION_MODULE)
    .replaceAll('{docroot}', arm.docroot ?? '{docroot}')
    .replaceAll('{tlsKey}', arm.tls?.key ?? '{tlsKey}').replaceAll('{tlsCert}', arm.tls?.cert ?? '{tlsCert}');
}

const TLS_PLACEHOLDER = /\{tls(Key|Cert)\}/;
const DOCROOT_PLACEHOLDER = '{docroot}';
// Where a system program is looked for besides PATH: nginx is in /usr/sbin, which a user's PATH may lack.
const SYSTEM_PROGRAM_DIRS = ['/usr/sbin', '/sbin'];

// The absolute path of the executable name on PATH (or in SYSTEM_PROGRAM_DIRS), or null.
function programPath(name, searchPath = process.env.PATH ?? '') {
  const dirs = [...searchPath.split(path.delimiter).filter(Boolean), ...SYSTEM_PROGRAM_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

const requireChecks = new Map();

// null when `require(spec)` works from directory dir with the Node node (an addon loads only in the Node it was
// built for), else the first line of the error.
function requireProblem(spec, dir, node = process.execPath) {
  const key = `${node}\0${dir}\0${spec}`;
  if (!requireChecks.has(key)) {
    const result = spawnSync(node, ['-e', 'require(process.argv[1])', spec],
      { cwd: dir, encoding: 'utf8', timeout: REQUIRE_CHECK_TIMEOUT_MS });
    const problem = result.status === 0 ? null
      : (result.stderr.split('\n').find((line) => /Error/.test(line)) ?? `exit status ${result.status}`).trim();
    requireChecks.set(key, problem);
  }
  return requireChecks.get(key);
}

// The command of a --vs "<command>" arm for one scenario: {scenario} is the scenario's name (http/hello-world),
// {name} its last part (hello-world), {port} a free port the runner picks (then the server need not print
// "listening on"); without {port}, "--port 0" is appended. {tlsKey} and {tlsCert} are the run's TLS files,
// {docroot} its document root.
function commandServer(arm, scenario) {
  let text = arm.command.replaceAll('{scenario}', scenario.name)
    .replaceAll('{name}', scenario.name.split('/').pop())
    .replaceAll('{docroot}', arm.docroot ?? '{docroot}')
    .replaceAll('{tlsKey}', arm.tls?.key ?? '{tlsKey}').replaceAll('{tlsCert}', arm.tls?.cert ?? '{tlsCert}');
  const fixedPort = text.includes('{port}');
  if (!fixedPort) text += ` ${PORT_ARGS.join(' ')}`;
  return { argv: ['sh', '-c', `exec ${text}`], cwd: arm.root, fixedPort };
}

// A server of the system (entry.program) started with a configuration file: { argv, cwd, fixedPort: true, config },
// config being { name, text } (text: the filled template, with {port} and {configDir} left for withPort) and
// `parent`, the folder its own folder goes under. Or { skip: reason } when the program is not installed.
function programServer(arm, scenario, entry) {
  const executable = programPath(entry.program);
  if (executable === null) return { skip: `${arm.side}: ${entry.program} is not installed (scripts/deps.sh --full)` };
  const argv = [executable, ...entry.command.slice(1).map((part) => fill(part, arm))];
  const config = entry.config ? { name: entry.config.name, text: fill(entry.config.template, arm),
    parent: arm.scratch ?? os.tmpdir() } : null;
  return { argv, cwd: arm.root, fixedPort: true, config, load: entry.load ?? null };
}

// What keeps a filled server from starting here, or null: a placeholder of the run's files left unfilled.
function missingRunFiles(arm, scenario, parts) {
  if (parts.some((part) => TLS_PLACEHOLDER.test(part))) {
    return `${arm.side}: ${scenario.name} needs the run's TLS key and certificate, which openssl did not make`;
  }
  if (parts.some((part) => part.includes(DOCROOT_PLACEHOLDER))) {
    return `${arm.side}: ${scenario.name} needs the run's document root, which was not made`;
  }
  return null;
}

// { argv, cwd, fixedPort, load, config } to start arm's server for scenario, or { skip: reason }. load: what the
// server's entry changes in the scenario's request for lwload (socket.io's path and protocol), or null. config:
// the configuration file a system program reads (programServer), or null. fixedPort: the command takes {port}
// (or its configuration does) instead of printing "listening on".
function serverFor(arm, scenario) {
  if (arm.kind === 'command') return commandServer(arm, scenario);
  const entry = scenario.servers[arm.impl];
  if (!entry) return { skip: `${scenario.name} has no ${arm.impl} server` };
  if (entry.program) {
    const server = programServer(arm, scenario, entry);
    const missing = server.skip ? null : missingRunFiles(arm, scenario, [...server.argv, server.config?.text ?? '']);
    return missing === null ? server : { skip: missing };
  }
  const argv = [...entry.command.map((part) => fill(part, arm)), ...PORT_ARGS];
  const missing = missingRunFiles(arm, scenario, argv);
  if (missing !== null) return { skip: missing };
  const script = argv.find((part) => part.endsWith('.js'));
  if (script && !fs.existsSync(script)) return { skip: `${arm.side}: ${path.relative(arm.root, script)} is missing` };
  if (!script && !fs.existsSync(argv[0])) return { skip: `${arm.side}: ${argv[0]} was not built` };
  if (entry.requires) {
    const problem = requireProblem(fill(entry.requires, arm), path.dirname(script ?? argv[0]), arm.node);
    if (problem !== null) return { skip: `${arm.side}: ${fill(entry.requires, arm)} does not load (${problem})` };
  }
  return { argv, cwd: arm.root, fixedPort: false, load: entry.load ?? null, config: null };
}

// A short name for an arm, for the report: "loopwire-cpp @ 1a2b3c4 (subject)".
function describeArm(arm) {
  if (arm.kind === 'command') return `command: ${arm.command}`;
  const onNode = arm.nodeVersion ?? process.version;
  // A system program is the same whatever the ref: its version says which it is.
  if (arm.programVersion) return `${arm.impl} (${arm.programVersion})`;
  if (arm.vs) return `${arm.impl} (Node ${onNode})`;
  const where = arm.kind === 'worktree' ? `working tree${arm.dirty ? ' (uncommitted changes)' : ''}`
    : `${arm.sha.slice(0, 10)}${arm.ref !== arm.sha ? ` (${arm.ref})` : ''}`;
  return `${arm.impl} @ ${where}${arm.node ? ` (Node ${onNode})` : ''}`;
}

module.exports = { serverFor, describeArm, requireProblem, fill, programPath, PORT_ARGS };
