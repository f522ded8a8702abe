'use strict';
// Starting and stopping one scenario server, pinned to a CPU with taskset.
//
// startServer() spawns the command in a process group of its own (so that stopping it reaches any children),
// waits for its "listening on <port>" line (or, for a command given a fixed port, for the port to accept
// connections) within startTimeoutMs, and keeps draining its output so that a chatty server never blocks on
// a full pipe. Every server started is stopped when the runner exits, however it exits (stopAllServers()).
//
// A server that exits with UNAVAILABLE_EXIT_STATUS before listening cannot run here at all (its module lacks what
// the scenario needs); startServer() then rejects with an error whose `unavailable` is true, for the caller to skip
// the scenario rather than stop the run.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { UNAVAILABLE_EXIT_STATUS } = require('../scenarios/js/common');

// How long a server may take to print "listening on <port>"; valgrind needs far longer.
const START_TIMEOUT_MS = 15000;
// After SIGTERM, how long a server may take to exit before it gets SIGKILL.
const STOP_TIMEOUT_MS = 5000;
// How much of a server's output is kept for error messages.
const OUTPUT_TAIL_BYTES = 4096;
// Between two connection attempts while waiting for a fixed port.
const PORT_POLL_MS = 50;

const LISTENING_LINE = /^listening on (\d+)\s*$/m;
// A cluster's launcher prints its second node's port first (bench/scenarios/js/cluster/launcher.js).
const SPLIT_LINE = /^split on (\d+)\s*$/m;

const live = new Set();

function appendTail(tail, chunk) {
  const text = tail + chunk;
  return text.length > OUTPUT_TAIL_BYTES ? text.slice(-OUTPUT_TAIL_BYTES) : text;
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

// A free port now (bound and released), for commands that take a fixed {port}.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// A configuration template (arms.js, programServer) for one start: {port} and {configDir} filled.
function renderConfig(text, { port, configDir }) {
  return text.replaceAll('{port}', String(port)).replaceAll('{configDir}', configDir);
}

// Writes server.config ({ name, text, parent }) for port into a new folder under its parent. Returns the file's path.
function writeConfig(config, port) {
  fs.mkdirSync(config.parent, { recursive: true });
  const configDir = fs.mkdtempSync(path.join(config.parent, `${path.parse(config.name).name}-`));
  const file = path.join(configDir, config.name);
  fs.writeFileSync(file, renderConfig(config.text, { port, configDir }));
  return file;
}

// A server spec ({ argv, fixedPort, config }) made ready to start: when it takes a fixed {port}, a free port is
// picked and put in, and its configuration file, if it has one, is written with that port ({config} in argv is
// its path). Resolves to { argv, fixedPort } with fixedPort the number or null.
async function withPort(server) {
  if (!server.fixedPort) return { argv: server.argv, fixedPort: null };
  const port = await freePort();
  const configFile = server.config ? writeConfig(server.config, port) : null;
  const argv = server.argv.map((part) => {
    const withPortNumber = part.replaceAll('{port}', String(port));
    return configFile === null ? withPortNumber : withPortNumber.replaceAll('{config}', configFile);
  });
  return { argv, fixedPort: port };
}

// argv: the command; cwd; cpu: the CPU to pin it to (null: not pinned); fixedPort: the port the command was
// given, when it does not print "listening on"; label: for messages. Resolves to a Server once it listens.
async function startServer({ argv, cwd, cpu = null, fixedPort = null, label, startTimeoutMs = START_TIMEOUT_MS,
  env = process.env }) {
  const command = cpu === null ? argv : ['taskset', '-c', String(cpu), ...argv];
  const child = spawn(command[0], command.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = new Server(child, label);
  live.add(server);
  try {
    server.port = await server.waitUntilListening(fixedPort, startTimeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

class Server {
  constructor(child, label) {
    this.child = child;
    this.pid = child.pid;
    this.label = label;
    this.port = null;
    this.splitPort = null;  // a cluster's second node (SPLIT_LINE)
    this.output = '';
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
      child.on('error', (error) => {
        this.output = appendTail(this.output, `\n${error.message}`);
        resolve({ code: null, signal: null, error });
      });
    });
    this.exitStatus = null;
    this.exited.then((status) => {
      this.exitStatus = status;
      live.delete(this);
    });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      this.output = appendTail(this.output, chunk);
    });
  }

  waitUntilListening(fixedPort, timeoutMs) {
    return new Promise((resolve, reject) => {
      let stdout = '';
      let settled = false;
      const finish = (error, port) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(port);
      };
      const timer = setTimeout(() => {
        finish(new Error(`${this.label}: not listening after ${timeoutMs} ms${this.describeOutput()}`));
      }, timeoutMs);
      this.child.stdout.on('data', (chunk) => {
        this.output = appendTail(this.output, chunk);
        if (fixedPort !== null || settled) return;
        stdout = appendTail(stdout, chunk);
        const match = LISTENING_LINE.exec(stdout);
        const split = SPLIT_LINE.exec(stdout);
        if (split) this.splitPort = Number(split[1]);
        if (match) finish(null, Number(match[1]));
      });
      this.exited.then(({ code, signal }) => {
        const error = new Error(`${this.label}: exited (${signal ?? `status ${code}`}) before listening` +
          this.describeOutput());
        error.unavailable = code === UNAVAILABLE_EXIT_STATUS;
        finish(error);
      });
      if (fixedPort !== null) {
        const poll = async () => {
          if (settled) return;
          if (await canConnect(fixedPort)) finish(null, fixedPort);
          else setTimeout(poll, PORT_POLL_MS);
        };
        poll();
      }
    });
  }

  describeOutput() {
    const text = this.output.trim();
    return text ? `; its output ends with:\n${text}` : '';
  }

  isRunning() {
    return this.exitStatus === null;
  }

  // Sends SIGTERM to the server's process group, then SIGKILL if it is still there after timeoutMs.
  // Resolves to its exit status.
  async stop(timeoutMs = STOP_TIMEOUT_MS) {
    if (!this.isRunning()) return this.exitStatus;
    signalGroup(this.pid, 'SIGTERM');
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      signalGroup(this.pid, 'SIGKILL');
      return this.exited;
    }
    return outcome;
  }
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

// Kills every server still running, synchronously (for process 'exit').
function killAllServers() {
  for (const server of live) signalGroup(server.pid, 'SIGKILL');
}

async function stopAllServers() {
  await Promise.all([...live].map((server) => server.stop()));
}

module.exports = { START_TIMEOUT_MS, startServer, stopAllServers, killAllServers, freePort, withPort, renderConfig };
