#!/usr/bin/env node
'use strict';
// The memory an idle WebSocket costs a server: starts one of the ws/echo scenario servers, reads its resident
// set size (VmRSS in /proc/<pid>/status), opens N WebSockets to it that then stay silent, reads it again once
// it has settled, and prints the difference per socket. The client side lives in this process, so the server's
// figure holds only what the server keeps per connection (its objects, buffers and, in Node, the JavaScript
// heap those take), not the kernel's socket buffers, which are not part of any process's RSS.
//
//   node bench/scripts/idle-rss.js [--impl loopwire-js|loopwire-cpp|uws|node-http] [--connections 10000]
//                                  [--tls [--low-memory] [--floor]] [--opens 200] [--uws DIR] [--build DIR]
//
// --tls: WebSockets over TLS (wss) to an SSLApp (loopwire-js and uws only) with a key and certificate made by the
// openssl command; --low-memory sets its ssl_prefer_low_memory_usage. --floor also measures, in a process of its
// own on the same node (so the same OpenSSL), the floor under that figure: what OpenSSL alone keeps for as many
// handshaken server connections with the same settings and no loopwire (bench/floor/TlsIdleFloor.cpp, built with
// the c++ compiler against the node's headers), and prints both. --opens: connections being opened at once (the
// record buffers of handshakes in flight leave the allocator's heap fragmented; 1 shows what the idle connections
// alone hold). uws: the uwebsockets package folder
// (default: the A/B runner's cache). Needs `ulimit -n` above the number of connections (both processes inherit
// it).
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const tls = require('node:tls');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..', '..');
const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'loopwire-js' },
    connections: { type: 'string', default: '10000' },
    tls: { type: 'boolean', default: false },
    'low-memory': { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    opens: { type: 'string', default: '200' },
    uws: { type: 'string', default: path.join(os.homedir(), '.cache', 'loopwire-bench', 'uwebsockets-3.0.6', 'node_modules', 'uwebsockets') },
    build: { type: 'string', default: path.join(ROOT, 'build') },
  },
});
const CONNECTIONS = Number(values.connections);
// Sockets opened at once; the rest follow as these complete their handshakes.
const CONCURRENT_OPENS = Number(values.opens);
// How long the server is left alone before each reading, and how many readings (the lowest is kept: RSS only
// drops when the allocator or the garbage collector gives memory back).
const SETTLE_MS = 1500;
const READINGS = 3;

const SERVERS = {
  'loopwire-js': [process.execPath, path.join(ROOT, 'bench/scenarios/js/uws/echo.js'), '--module', ROOT],
  uws: [process.execPath, path.join(ROOT, 'bench/scenarios/js/uws/echo.js'), '--module', values.uws],
  'node-http': [process.execPath, path.join(ROOT, 'bench/scenarios/js/node/echo.js')],
  'loopwire-cpp': [path.join(values.build, 'bench/scenarios/echo')],
};

// The TLS server, run as `node -e`: an SSLApp on the uWebSockets.js API with one WebSocket route whose sockets
// never time out.
const TLS_SERVER_SOURCE = `
const [moduleSpec, key, cert, lowMemory] = process.argv.slice(1);
const uWS = require(moduleSpec);
uWS.SSLApp({ key_file_name: key, cert_file_name: cert, ssl_prefer_low_memory_usage: lowMemory === 'true' })
  .ws('/*', { idleTimeout: 0, message: (ws, message, isBinary) => ws.send(message, isBinary) })
  .listen('127.0.0.1', 0, (token) => {
    if (!token) process.exit(1);
    console.log('listening on ' + uWS.us_socket_local_port(token));
  });
`;
const TLS_MODULES = { 'loopwire-js': ROOT, uws: values.uws };

// The command of the TLS server, with a key and certificate made in folder.
function tlsServerCommand(folder) {
  const moduleSpec = TLS_MODULES[values.impl];
  if (!moduleSpec) throw new Error(`--tls needs --impl ${Object.keys(TLS_MODULES).join(' or ')}`);
  const key = path.join(folder, 'key.pem');
  const cert = path.join(folder, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  return [process.execPath, '-e', TLS_SERVER_SOURCE, moduleSpec, key, cert, String(values['low-memory'])];
}

// The floor program as a Node-API addon for the node running this script, built once per node version.
function buildFloorAddon() {
  const include = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  const output = path.join(ROOT, 'build-node', `tls-idle-floor-${process.version}.node`);
  const source = path.join(ROOT, 'bench', 'floor', 'TlsIdleFloor.cpp');
  if (!fs.existsSync(output) || fs.statSync(output).mtimeMs < fs.statSync(source).mtimeMs) {
    fs.mkdirSync(path.dirname(output), { recursive: true });
    execFileSync(process.env.CXX || 'c++', ['-std=c++20', '-O2', '-shared', '-fPIC', '-DLW_FLOOR_NODE_ADDON',
      '-DNODE_GYP_MODULE_NAME=tls_idle_floor', '-isystem', include, source, '-o', output], { stdio: 'inherit' });
  }
  return output;
}

// OpenSSL's own bytes per idle server connection with the settings of the measured server, in a fresh process.
function measureFloor(folder) {
  const addon = buildFloorAddon();
  const script = `const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(addon)});
    console.log(JSON.stringify(m.exports.measure(...JSON.parse(process.argv[1]))));`;
  const args = [path.join(folder, 'key.pem'), path.join(folder, 'cert.pem'), CONNECTIONS, values['low-memory']];
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(args)], { encoding: 'utf8' }));
}

function residentBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function lowestReading(pid) {
  let lowest = Infinity;
  for (let i = 0; i < READINGS; ++i) {
    await sleep(SETTLE_MS);
    lowest = Math.min(lowest, residentBytes(pid));
  }
  return lowest;
}

function startServer(command) {
  const portArguments = values.tls ? [] : ['--port', '0'];
  const child = spawn(command[0], [...command.slice(1), ...portArguments], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (\d+)/.exec(output);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
}

/** Opens one WebSocket with a raw socket (TLS with --tls); resolves with the socket once the 101 has arrived. */
function openWebSocket(port) {
  return new Promise((resolve, reject) => {
    const connect = (onConnected) => (values.tls
      ? tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, onConnected)
      : net.connect(port, '127.0.0.1', onConnected));
    const socket = connect(() => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                   `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    let head = '';
    const onData = (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`));
      else resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

async function main() {
  if (values.floor && !values.tls) throw new Error('--floor is for --tls');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-idle-rss-'));
  const command = values.tls ? tlsServerCommand(folder) : SERVERS[values.impl];
  if (!command) throw new Error(`--impl must be one of ${Object.keys(SERVERS).join(', ')}`);
  const { child, port } = await startServer(command);
  try {
    // One socket opened and closed first, so that what every server sets up on its first WebSocket (contexts,
    // compiled handlers) is in the baseline.
    (await openWebSocket(port)).destroy();
    const before = await lowestReading(child.pid);
    const sockets = [];
    let next = 0;
    const opener = async () => {
      while (next < CONNECTIONS) {
        next += 1;
        sockets.push(await openWebSocket(port));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_OPENS }, opener));
    const after = await lowestReading(child.pid);
    const perSocket = (after - before) / CONNECTIONS;
    const report = { impl: values.impl, tls: values.tls, lowMemory: values['low-memory'], connections: CONNECTIONS,
      opens: CONCURRENT_OPENS, rssBeforeBytes: before, rssAfterBytes: after, bytesPerIdleSocket: Math.round(perSocket) };
    if (values.floor) {
      const floor = measureFloor(folder);
      Object.assign(report, { openssl: floor.openssl, floorBytesPerConnection: Math.round(floor.residentIdle),
        aboveFloorBytes: Math.round(perSocket - floor.residentIdle) });
    }
    console.log(JSON.stringify(report));
    for (const socket of sockets) socket.destroy();
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
