#!/usr/bin/env node
'use strict';
// The memory an idle TLS connection costs a server: like idle-rss.js, for WebSockets over TLS (wss), the way a
// server holds thousands of quiet TLS connections. Starts an SSLApp on the uWebSockets.js API (loopwire's addon
// or uWebSockets.js itself) with a WebSocket route that never times out, reads its resident set size, opens N
// connections that finish their TLS handshake and their upgrade and then stay silent, reads it again once it has
// settled, and prints the difference per connection.
//
//   node bench/scripts/idle-tls-rss.js [--impl loopwire-js|uws] [--connections 10000] [--low-memory]
//                                      [--uws DIR]
//
// --low-memory sets ssl_prefer_low_memory_usage. Needs `ulimit -n` above the number of connections and the
// openssl command (for the key and certificate, made in a temporary folder).
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const tls = require('node:tls');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..', '..');
const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'loopwire-js' },
    connections: { type: 'string', default: '10000' },
    'low-memory': { type: 'boolean', default: false },
    uws: { type: 'string', default: path.join(os.homedir(), '.cache', 'loopwire-bench', 'uwebsockets-3.0.6', 'node_modules', 'uwebsockets') },
  },
});
const CONNECTIONS = Number(values.connections);
// Connections opened at once; the rest follow as these finish their handshakes.
const CONCURRENT_OPENS = 100;
// As in idle-rss.js: settle, read several times, keep the lowest.
const SETTLE_MS = 1500;
const READINGS = 3;

const MODULES = { 'loopwire-js': ROOT, uws: values.uws };

// The server, run as `node -e`: an SSLApp with one WebSocket route whose sockets never time out.
const SERVER_SOURCE = `
const [moduleSpec, key, cert, lowMemory] = process.argv.slice(1);
const uWS = require(moduleSpec);
uWS.SSLApp({ key_file_name: key, cert_file_name: cert, ssl_prefer_low_memory_usage: lowMemory === 'true' })
  .ws('/*', { idleTimeout: 0, message: (ws, message, isBinary) => ws.send(message, isBinary) })
  .listen('127.0.0.1', 0, (token) => {
    if (!token) process.exit(1);
    console.log('listening on ' + uWS.us_socket_local_port(token));
  });
`;

function makeCertificate(folder) {
  const key = path.join(folder, 'key.pem');
  const cert = path.join(folder, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  return { key, cert };
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

function startServer(moduleSpec, key, cert, lowMemory) {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE, moduleSpec, key, cert, String(lowMemory)],
    { stdio: ['ignore', 'pipe', 'inherit'] });
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

/** Opens one wss connection; resolves with the TLS socket once the 101 has arrived. */
function openSecureWebSocket(port) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
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
  const moduleSpec = MODULES[values.impl];
  if (!moduleSpec) throw new Error(`--impl must be one of ${Object.keys(MODULES).join(', ')}`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-idle-tls-'));
  const { key, cert } = makeCertificate(folder);
  const { child, port } = await startServer(moduleSpec, key, cert, values['low-memory']);
  try {
    // A first connection opened and closed, so that what every server sets up once is in the baseline.
    (await openSecureWebSocket(port)).destroy();
    const before = await lowestReading(child.pid);
    const sockets = [];
    let next = 0;
    const opener = async () => {
      while (next < CONNECTIONS) {
        next += 1;
        sockets.push(await openSecureWebSocket(port));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_OPENS }, opener));
    const after = await lowestReading(child.pid);
    console.log(JSON.stringify({ impl: values.impl, lowMemory: values['low-memory'], connections: CONNECTIONS,
      rssBeforeBytes: before, rssAfterBytes: after, bytesPerIdleConnection: Math.round((after - before) / CONNECTIONS) }));
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
