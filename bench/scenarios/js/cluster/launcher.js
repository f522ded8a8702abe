'use strict';
// Scenario cluster/fanout: a cluster of two server processes sharing one Redis, started as one "server" for the
// A/B runner. It starts a redis-server (a free port, a temporary folder, persisting nothing), then two copies of
// the node script given with --node (loopwire-node.js or uws-glue-node.js) linked to it, waits until both listen
// and are linked, and prints "split on <port>" (the second node, for lwload's --split-url) and "listening on
// <port>" (the first, where the publisher and half the subscribers go). Everything runs in the runner's process
// group, so the runner's CPU reading covers both nodes and Redis, and its SIGTERM ends them all. --history N is
// handed to both nodes (loopwire's: the topic keeps its last N messages, and every delivery comes stamped).
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { UNAVAILABLE_EXIT_STATUS } = require('../common');

// How long Redis and the nodes may take to start.
const START_TIMEOUT_MS = 20000;

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

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

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

const children = [];
let folder = null;
function cleanUp() {
  for (const child of children) child.kill('SIGKILL');
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
}
process.on('SIGTERM', () => { cleanUp(); process.exit(0); });
process.on('exit', cleanUp);

function fail(message, status = 1) {
  process.stderr.write(`cluster launcher: ${message}\n`);
  process.exit(status);
}

// Starts one node and resolves with its port once it printed both "listening on <port>" and "linked".
function startNode(script, module, redisUrl) {
  const history = option('--history');
  const child = spawn(process.execPath,
    [script, '--module', module, '--redis', redisUrl, ...(history ? ['--history', history] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${output}`)), START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const listening = /listening on (\d+)/.exec(output);
      if (listening && /^linked$/m.test(output)) {
        clearTimeout(timer);
        resolve(Number(listening[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === UNAVAILABLE_EXIT_STATUS) process.exit(UNAVAILABLE_EXIT_STATUS);
      reject(new Error(`${script} exited with ${code}: ${output}`));
    });
  });
}

async function main() {
  const script = option('--node');
  const module = option('--module');
  if (!script || !module) fail('usage: launcher.js --node SCRIPT --module SPEC [--port N]', 2);
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lwbench-redis-'));
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no', '--dir', folder, '--loglevel', 'warning'], { stdio: 'ignore' });
  children.push(redis);
  redis.on('error', () => fail('redis-server is missing (scripts/deps.sh installs it)', UNAVAILABLE_EXIT_STATUS));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await canConnect(redisPort))) {
    if (Date.now() > deadline || redis.exitCode !== null) fail('redis-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const nodeScript = path.resolve(__dirname, script);
  const [first, second] = await Promise.all([startNode(nodeScript, module, redisUrl),
    startNode(nodeScript, module, redisUrl)]);
  process.stdout.write(`split on ${second}\nlistening on ${first}\n`);
}

main().catch((error) => fail(error.message));
