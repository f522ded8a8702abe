'use strict';
// The allocation rule of DESIGN.md for the whole Node process, Node's and V8's allocations included (counting.test.js
// sees only the addon's): a server (fixtures/allocation-server.js) runs with the malloc-counting library
// tests/alloc/ProcessAllocationCounter.c preloaded, and lwload sends it a small and a large batch of requests over
// 50 connections; the difference between the two counts, divided by the difference in requests, is what one request
// costs once the per-run costs (connections, buffers, warm-up) cancel out. Linux only (the library needs glibc);
// needs the C++ build (npm run build:cpp) for the library and lwload, which npm test makes first.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');

const root = path.resolve(__dirname, '..', '..');
const counterLibrary = path.join(root, 'build', 'tests', 'process_allocation_counter.so');
const lwload = path.join(root, 'build', 'bench', 'lwload');
const CONNECTIONS = 50;
// Before measuring: long enough for V8 to have compiled the handlers with its optimizing tiers (Node 24's
// compilers allocate their zones while they work, some 0.05 per request over the first few thousand).
const WARM_UP_RUN = 20000;
const SMALL_RUN = 2000;
const LARGE_RUN = 22000;
// Under the rule's "no allocation per request": what remains is V8's and Node's own housekeeping, spread over the
// requests (the garbage collector's, a callback scope now and then).
const MAX_PER_GET = 0.05;
// A body chunk reaches onData as an ArrayBuffer over the addon's memory, for which V8 allocates an
// ArrayBufferExtension; its BackingStore is the last chunk's, as the requests are alike (same length, same place in
// the receive buffer). That floor, and a little. See docs/decisions/node-addon.md, "Lent body chunks".
const MAX_PER_POST = 1.1;

// V8's young-generation collections allocate their own bookkeeping (free lists, worklists, tasks), in proportion to
// the garbage the handlers' closures make, not to anything the server does: with the default young generation,
// which starts small, that was up to 0.05 per request (/aborted on Node 26), and all that was left on the other
// routes. Starting it at 16 MiB makes collections rare enough that what is counted is the server's: 0 per request
// on hello, headers and cached with Node 20 to 24.
const NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=64'];

const skip = process.platform !== 'linux' ? 'the counting library is for glibc on Linux' : false;

/** Starts the fixture server with the counter; resolves { port, read(), stop() }. */
function startCountedServer(t) {
  for (const file of [counterLibrary, lwload]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run npm run build:cpp first`);
  }
  const countFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lw-alloc-')), 'count');
  fs.writeFileSync(countFile, Buffer.alloc(8));
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(__dirname, 'fixtures', 'allocation-server.js')], {
    env: { ...process.env, LD_PRELOAD: counterLibrary, LW_ALLOCATION_COUNT_FILE: countFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => {
    child.kill();
    fs.rmSync(path.dirname(countFile), { recursive: true, force: true });
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.on('exit', (code) => reject(new Error(`the allocation server exited (${code}) before listening`)));
    child.stdout.on('data', (data) => {
      output += data;
      const match = /listening on (\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), read: () => Number(fs.readFileSync(countFile).readBigUInt64LE(0)) });
    });
  });
}

/** Runs lwload for `requests` requests; resolves its result line, checked for errors. */
function load(port, route, requests, extra = []) {
  const args = ['http', '-c', String(CONNECTIONS), '-n', String(requests), '-d', '60s', ...extra,
    `http://127.0.0.1:${port}${route}`];
  return new Promise((resolve, reject) => {
    execFile(lwload, args, (error, stdout, stderr) => {
      if (error) return reject(new Error(`lwload ${args.join(' ')}: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

/** The allocations per request on `route`: the large run's count minus the small run's, after a warm-up. */
async function allocationsPerRequest(server, route, extra) {
  await load(server.port, route, WARM_UP_RUN, extra);
  const before = server.read();
  const small = await load(server.port, route, SMALL_RUN, extra);
  const middle = server.read();
  const large = await load(server.port, route, LARGE_RUN, extra);
  const after = server.read();
  for (const result of [small, large]) {
    const errors = Object.values(result.errors).reduce((sum, count) => sum + count, 0);
    assert.deepEqual({ errors, non2xx: result.non2xx }, { errors: 0, non2xx: 0 }, `lwload on ${route}`);
  }
  return ((after - middle) - (middle - before)) / (LARGE_RUN - SMALL_RUN);
}

test('the whole process allocates (almost) nothing per request on the GET paths', { skip }, async (t) => {
  const server = await startCountedServer(t);
  for (const route of ['/hello', '/headers', '/aborted', '/cached']) {
    const perRequest = await allocationsPerRequest(server, route, []);
    t.diagnostic(`${route}: ${perRequest.toFixed(4)} allocations per request`);
    assert.ok(perRequest < MAX_PER_GET, `${route}: ${perRequest} allocations per request (at most ${MAX_PER_GET})`);
  }
});

test('a POST read through onData allocates no more than V8 needs for the chunk it lends', { skip }, async (t) => {
  const server = await startCountedServer(t);
  const perRequest = await allocationsPerRequest(server, '/post', ['-m', 'POST', '--body-size', '1k']);
  t.diagnostic(`/post: ${perRequest.toFixed(4)} allocations per request`);
  assert.ok(perRequest <= MAX_PER_POST, `/post: ${perRequest} allocations per request (at most ${MAX_PER_POST})`);
});
