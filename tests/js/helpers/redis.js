'use strict';
// A real redis-server for a test (Debian's, installed by scripts/deps.sh): on a free loopback port, in a temporary
// folder, persisting nothing, stopped and removed when the test ends. stop() and start() again keep the port.

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

// Attempts at free ports before a server counts as not starting.
const START_ATTEMPTS = 5;
// How long the nodes of a cluster may take to agree that it is whole.
const CLUSTER_READY_TIMEOUT_MS = 30000;

function available() {
  return spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Sends one RESP command (an array of strings or Buffers) and resolves with the raw reply. */
function command(port, args) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(2000, () => { socket.destroy(); reject(new Error('redis: no reply')); });
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.endsWith('\r\n')) { socket.destroy(); resolve(reply); }
    });
    socket.on('error', reject);
    const parts = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(arg);
      parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
    }
    socket.write(Buffer.concat(parts));
  });
}

/** Resolves whether something accepts TCP connections on port. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

class Redis {
  constructor(port, folder, extra, tlsOnly) {
    this.port = port;
    this.folder = folder;
    this.extra = extra;
    this.tlsOnly = tlsOnly;
    this.child = null;
  }

  get url() { return `${this.tlsOnly ? 'rediss' : 'redis'}://127.0.0.1:${this.port}`; }

  async start() {
    const ports = this.tlsOnly ? ['--port', '0', '--tls-port', String(this.port)] : ['--port', String(this.port)];
    const args = [...ports, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', this.folder, '--loglevel', 'warning', ...this.extra];
    // Without the sanitizer runtime the sanitized suite preloads into node (tests/js/helpers/sanitized.js).
    const { LD_PRELOAD, ASAN_OPTIONS, UBSAN_OPTIONS, ...env } = process.env;
    this.child = spawn('redis-server', args, { stdio: 'ignore', env });
    const child = this.child;
    const deadline = Date.now() + 10000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      try {
        // A TLS port cannot be asked in plain text: that it accepts connections will do. Otherwise the server must
        // be this one, not another that held the port while this one failed to bind it and is exiting; with
        // requirepass INFO is refused (NOAUTH), and any reply will do.
        if (this.tlsOnly) {
          if (await accepts(this.port)) return;
        } else {
          const reply = await command(this.port, ['INFO', 'server']);
          if (reply.startsWith('-') || reply.includes(`process_id:${child.pid}\r\n`)) return;
        }
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('redis-server did not start');
  }

  stop() {
    if (!this.child) return Promise.resolve();
    const child = this.child;
    this.child = null;
    if (child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGKILL'); });
  }

  command(args) { return command(this.port, args); }

  /** Resolves once Redis counts `count` subscribers of channel. */
  async waitForSubscribers(channel, count, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = await this.command(['PUBSUB', 'NUMSUB', channel]);
      if (reply.endsWith(`:${count}\r\n`)) return;
      if (Date.now() > deadline) throw new Error(`${channel}: ${JSON.stringify(reply)}, waiting for ${count}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/**
 * Starts a redis-server for the test t (extra: more redis-server arguments; tlsOnly: its port speaks only TLS, with
 * the --tls-* files given in extra, and command() does not work; clusterBus: a cluster node's bus port, picked free
 * with its port); resolves with a Redis.
 */
async function startRedis(t, extra = [], { tlsOnly = false, clusterBus = false } = {}) {
  if (!available()) throw new Error('redis-server is missing: run scripts/deps.sh --install');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-redis-'));
  // A port free a moment ago may be taken by the time redis-server binds it (by another test's server or a
  // client's ephemeral port, with test files run several at once): then it exits, and the next attempt takes others.
  for (let attempt = 1; ; attempt++) {
    // The bus port is given: the default, the port + 10000, may be past 65535 for a port the kernel picked.
    const bus = clusterBus ? ['--cluster-port', String(await freePort())] : [];
    const redis = new Redis(await freePort(), folder, [...bus, ...extra], tlsOnly);
    try {
      await redis.start();
    } catch (error) {
      await redis.stop();
      if (attempt < START_ATTEMPTS) continue;
      fs.rmSync(folder, { recursive: true, force: true });
      throw error;
    }
    t.after(async () => {
      await redis.stop();
      fs.rmSync(folder, { recursive: true, force: true });
    });
    return redis;
  }
}

/**
 * Starts a Redis Cluster of three masters (no replicas) for the test t, made with `redis-cli --cluster create`;
 * resolves once every node sees it whole, with { nodes (Redis instances), shardSubscribers(channel) (the sum over
 * the nodes of PUBSUB SHARDNUMSUB), waitForShardSubscribers(channel, count) }.
 */
async function startRedisCluster(t) {
  const nodes = [];
  for (let i = 0; i < 3; i++) {
    nodes.push(await startRedis(t, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
      { clusterBus: true }));
  }
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`),
    '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore' });
  if (create.status !== 0) throw new Error('redis-cli --cluster create failed');
  // Seconds, more on a loaded machine.
  const deadline = Date.now() + CLUSTER_READY_TIMEOUT_MS;
  for (const node of nodes) {
    while (!(await node.command(['CLUSTER', 'INFO'])).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error('the cluster did not become ready');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const shardSubscribers = async (channel) => {
    let total = 0;
    for (const node of nodes) {
      const reply = await node.command(['PUBSUB', 'SHARDNUMSUB', channel]);
      total += Number(reply.slice(reply.lastIndexOf(':') + 1));
    }
    return total;
  };
  const waitForShardSubscribers = async (channel, count, timeoutMs = 5000) => {
    const end = Date.now() + timeoutMs;
    while ((await shardSubscribers(channel)) !== count) {
      if (Date.now() > end) throw new Error(`${channel}: waiting for ${count} shard subscribers`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { nodes, shardSubscribers, waitForShardSubscribers };
}

module.exports = { startRedis, startRedisCluster, freePort };
