'use strict';
// Running the load against one server, pinned to the load CPU, and reading its result: lwload (bench/load/,
// docs/lwload.md) and its JSON line, or, for the HTTP/2 scenarios (request.mode 'h2'), h2load and its report read
// into the same shape (h2load.js). loadArgs() is pure, so the command line each scenario gets is unit-tested.
const { execFile } = require('node:child_process');
const { h2loadArgs, h2loadCommand, parseH2load, timedSeconds } = require('./h2load');

// lwload's own limit on a --requests run; the runner never needs as long.
const REQUESTS_TIME_LIMIT_S = 600;
// A load run that has not ended this long after its expected end is killed.
const LOAD_GRACE_MS = 30000;
const LOAD_OUTPUT_BYTES = 1 << 20;

// The lwload arguments for scenario against 127.0.0.1:port. Exactly one of seconds and requests is given. Modes:
// 'http', 'ws' (echo) and 'fanout' (connections are the subscribers; requests count deliveries); a scenario with
// request.tls is loaded over https:// or wss://. A fanout scenario with request.split loads a cluster: its server
// printed a second port (splitPort), where every other subscriber goes (lwload --split-url). load: what one server
// changes in the request (arms.serverFor), such as socket.io's path and protocol (request.socketIo: lwload
// --socket-io, text messages).
function loadArgs(scenario, port, { seconds = null, requests = null, connections = null, splitPort = null,
  load = null } = {}) {
  if (scenario.request.mode === 'h2') return h2loadArgs(scenario, port, { seconds, requests, connections });
  const request = { ...scenario.request, ...(load ?? {}) };
  const args = [request.mode, '-c', String(connections ?? scenario.connections)];
  if (requests !== null) args.push('-n', String(requests), '-d', `${REQUESTS_TIME_LIMIT_S}s`);
  else args.push('-d', `${seconds}s`);
  for (const [name, value] of Object.entries(request.headers)) args.push('-H', `${name}: ${value}`);
  if (request.mode === 'ws' || request.mode === 'fanout') {
    if (request.socketIo) args.push('-s', String(request.messageBytes), '--socket-io');
    else args.push('-s', String(request.messageBytes), request.text ? '--text' : '--binary');
    if (request.mode === 'fanout') args.push('--window', String(request.window));
    if (request.split) {
      if (!splitPort) throw new Error(`${scenario.name}: the server printed no "split on <port>" line`);
      args.push('--split-url', `${request.tls ? 'wss' : 'ws'}://127.0.0.1:${splitPort}${request.path}`);
    }
    if (request.settleMs) args.push('--settle', String(request.settleMs));
    if (request.stamped) args.push('--stamped');
    args.push(`${request.tls ? 'wss' : 'ws'}://127.0.0.1:${port}${request.path}`);
    return args;
  }
  if (scenario.pipeline !== 1) args.push('-p', String(scenario.pipeline));
  if (request.reconnect) args.push('--reconnect');
  if (request.tls && request.tlsResume === false) args.push('--tls-resume', 'off');
  if (request.method !== 'GET') args.push('-m', request.method);
  if (request.bodyFile) args.push('--body-file', request.bodyFile);
  args.push(`${request.tls ? 'https' : 'http'}://127.0.0.1:${port}${request.path}`);
  return args;
}

// The load generator a scenario is run with: 'h2load' for request.mode 'h2', 'lwload' for every other.
function loadTool(scenario) {
  return scenario.request.mode === 'h2' ? 'h2load' : 'lwload';
}

// How long a timed run of scenario for `seconds` lasts: `seconds`, or more for h2load (h2load.js timedSeconds).
function loadSeconds(scenario, seconds) {
  return loadTool(scenario) === 'h2load' ? timedSeconds(seconds) : seconds;
}

// Runs lwload (or h2load, tool 'h2load') with args (pinned to cpu unless null) and resolves to its parsed JSON line
// (h2load's report in the same shape).
function runLoad({ lwload, args, cpu = null, expectedSeconds, tool = 'lwload' }) {
  const program = tool === 'h2load' ? h2loadCommand(args) : [lwload, ...args];
  const command = cpu === null ? program : ['taskset', '-c', String(cpu), ...program];
  const timeout = expectedSeconds * 1000 + LOAD_GRACE_MS;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(command[0], command.slice(1), { timeout, maxBuffer: LOAD_OUTPUT_BYTES }, (error, stdout, stderr) => {
      // execFile's timeout sends SIGTERM and drops the output: lwload then stops, prints its line into a closed pipe
      // and exits with status 0, which leaves no error to tell by.
      const timedOut = Date.now() - started >= timeout;
      let result = null;
      let unreadable = 'no JSON line';
      try {
        result = tool === 'h2load' ? parseH2load(stdout) : JSON.parse(stdout.trim().split('\n').pop());
      } catch (parseError) {
        // Reported below with the tool's own words.
        if (tool === 'h2load') unreadable = `${parseError.message}:\n${stdout.trim()}`;
      }
      if (result === null || (error && result.requests === 0)) {
        const why = error?.killed || timedOut ? `stopped after ${timeout} ms, its time limit`
          : error ? `status ${error.code}` : unreadable;
        reject(new Error(`${tool} ${args.join(' ')}: ${why}\n${stderr.trim()}`));
        return;
      }
      resolve(result);
    });
  });
}

// The errors lwload counted, as one number (0 for a clean run).
function errorCount(result) {
  return Object.values(result.errors ?? {}).reduce((sum, n) => sum + n, 0);
}

module.exports = { loadArgs, loadTool, loadSeconds, runLoad, errorCount };
