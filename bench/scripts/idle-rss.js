#!/usr/bin/env node
'use strict';
// The memory an idle WebSocket costs a server: starts one of the ws/echo scenario servers, reads its resident
// set size (VmRSS in /proc/<pid>/status), opens N WebSockets to it that then stay silent, reads it again once
// it has settled, and prints the difference per socket. The client side lives in this process, so the server's
// figure holds only what the server keeps per connection (its objects, buffers and, in Node, the JavaScript
// heap those take), not the kernel's socket buffers, which are not part of any process's RSS.
//
//   node bench/scripts/idle-rss.js [--impl loopwire-js|loopwire-cpp|uws|node-http] [--connections 10000]
//                                  [--uws DIR] [--build DIR]
//
// uws: the uwebsockets package folder (default: the A/B runner's cache). Needs `ulimit -n` above the number of
// connections (both processes inherit it).
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..', '..');
const { values } = parseArgs({
  options: {
    impl: { type: 'string', default: 'loopwire-js' },
    connections: { type: 'string', default: '10000' },
    uws: { type: 'string', default: path.join(os.homedir(), '.cache', 'loopwire-bench', 'uwebsockets-3.0.6', 'node_modules', 'uwebsockets') },
    build: { type: 'string', default: path.join(ROOT, 'build') },
  },
});
const CONNECTIONS = Number(values.connections);
// Sockets opened at once; the rest follow as these complete their handshakes.
const CONCURRENT_OPENS = 200;
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
  const child = spawn(command[0], [...command.slice(1), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

/** Opens one WebSocket with a raw socket; resolves with the socket once the 101 has arrived. */
function openWebSocket(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
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
  const command = SERVERS[values.impl];
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
    console.log(JSON.stringify({ impl: values.impl, connections: CONNECTIONS, rssBeforeBytes: before, rssAfterBytes: after,
      bytesPerIdleSocket: Math.round(perSocket) }));
    for (const socket of sockets) socket.destroy();
  } finally {
    child.kill('SIGKILL');
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
