'use strict';
// app.connectPubSub: pub/sub across Apps and processes through a real redis-server (tests/js/helpers/redis.js).
// Every message a WebSocket or an App publishes reaches the subscribers of every App connected with the same
// prefix, once and in order; the link survives Redis going away; arguments are checked; the events reach the
// options' callbacks.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');

const uWS = require('../../addon/lib/index.js');
const { startRedis, startRedisCluster, freePort } = require('./helpers/redis.js');
const { connectClient, nextMessage } = require('./helpers/websocket.js');
const { runNode } = require('./helpers/child.js');

/** An App whose WebSockets on /ws subscribe to "chat" and publish what they send, linked to url. */
function chatApp(t, url, options = {}) {
  const app = uWS.App();
  app.ws('/ws', {
    open: (ws) => ws.subscribe('chat'),
    message: (ws, message, isBinary) => ws.publish('chat', message, isBinary),
  });
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token);
  t.after(() => app.close());
  const events = [];
  let onReady = () => {};
  const ready = new Promise((resolve) => { onReady = resolve; });
  app.connectPubSub(url, {
    ...options,
    ready: () => { events.push('ready'); onReady(); },
    error: (error) => events.push(`${error.kind}:${error.code}`),
  });
  return { app, port: uWS.us_socket_local_port(token), events, ready };
}

function waitFor(predicate, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (predicate()) return resolve();
      if (Date.now() > deadline) return reject(new Error('waitFor: timed out'));
      setTimeout(poll, 5);
    };
    poll();
  });
}

async function expectMessages(client, expected, isBinary = false) {
  for (const text of expected) {
    const message = await nextMessage(client);
    assert.equal(message.isBinary, isBinary);
    assert.equal(message.data.toString(), text);
  }
}

test('a message reaches every subscriber of every App and process once, in order', async (t) => {
  const redis = await startRedis(t);
  const first = chatApp(t, redis.url);
  const second = chatApp(t, redis.url);
  // A third App in a process of its own.
  const child = spawn(process.execPath, [path.join(__dirname, 'fixtures/pubsub-node.js'), redis.url],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.stdin.end());
  const childPort = await new Promise((resolve) => child.stdout.once('data', (line) => resolve(Number(line))));
  await Promise.all([first.ready, second.ready]);

  const sender = await connectClient(t, first.port, {}, '/ws');
  const neighbour = await connectClient(t, first.port, {}, '/ws');
  const remote = await connectClient(t, second.port, {}, '/ws');
  const otherProcess = await connectClient(t, childPort, {}, '/ws');
  await redis.waitForSubscribers('loopwire:chat', 3);

  const messages = Array.from({ length: 100 }, (_, i) => `message ${i}`);
  for (const message of messages) sender.send(message);
  await expectMessages(remote, messages);
  await expectMessages(otherProcess, messages);
  await expectMessages(neighbour, messages);
  sender.send(Buffer.from([0, 1, 2, 255]));
  const binary = await nextMessage(otherProcess);
  assert.equal(binary.isBinary, true);
  assert.deepEqual([...binary.data], [0, 1, 2, 255]);
  await nextMessage(neighbour);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(neighbour.queued.length, 0, 'no message twice');
  assert.equal(sender.queued.length, 0, 'the sender does not get its own');

  const stats = first.app.getPubSubStats();
  assert.equal(stats.state, 'ready');
  assert.equal(stats.published, 101);
  assert.equal(stats.dropped, 0);
  assert.equal(second.app.getPubSubStats().delivered, 101);
  // numSubscribers stays local.
  assert.equal(first.app.numSubscribers('chat'), 2);
  assert.equal(second.app.numSubscribers('chat'), 1);
});

test('app.publish reaches other Apps, and a message another program publishes arrives as it was sent', async (t) => {
  const redis = await startRedis(t);
  const first = chatApp(t, redis.url);
  const second = chatApp(t, redis.url);
  await Promise.all([first.ready, second.ready]);
  const remote = await connectClient(t, second.port, {}, '/ws');
  await redis.waitForSubscribers('loopwire:chat', 1);
  assert.equal(first.app.publish('chat', 'from the app'), true);
  await expectMessages(remote, ['from the app']);
  await redis.command(['PUBLISH', 'loopwire:chat', 'from redis-cli']);
  await expectMessages(remote, ['from redis-cli']);
  await redis.command(['PUBLISH', 'loopwire:chat', Buffer.from([0xff, 0xfe])]);  // not UTF-8: binary
  const raw = await nextMessage(remote);
  assert.equal(raw.isBinary, true);
  assert.deepEqual([...raw.data], [0xff, 0xfe]);
});

test('sharded: on a Redis Cluster each topic lives on its slot\'s master, and every message arrives once in order',
  async (t) => {
    const cluster = await startRedisCluster(t);
    const topics = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const shardedApp = (node) => {
      const app = uWS.App();
      app.ws('/ws', {
        open: (ws) => { for (const topic of topics) ws.subscribe(topic); },
        message: (ws, message, isBinary) => {
          const text = Buffer.from(message).toString();
          ws.publish(text.slice(0, text.indexOf('|')), message, isBinary);
        },
      });
      let token = false;
      app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
      t.after(() => app.close());
      let ready = 0;
      app.connectPubSub(node.url, { sharded: true, ready: () => { ready++; }, error: () => {} });
      return { app, port: uWS.us_socket_local_port(token), isReady: () => ready > 0 };
    };
    const first = shardedApp(cluster.nodes[0]);
    const second = shardedApp(cluster.nodes[2]);
    await waitFor(() => first.isReady() && second.isReady());
    const sender = await connectClient(t, first.port, {}, '/ws');
    const remote = await connectClient(t, second.port, {}, '/ws');
    for (const topic of topics) await cluster.waitForShardSubscribers(`loopwire:${topic}`, 2);
    // Each channel is on one node only: the master of its slot.
    for (const topic of topics) {
      const holders = [];
      for (const node of cluster.nodes) {
        const reply = await node.command(['PUBSUB', 'SHARDNUMSUB', `loopwire:${topic}`]);
        if (!reply.endsWith(':0\r\n')) holders.push(node.port);
      }
      assert.equal(holders.length, 1, topic);
    }
    const expected = new Map(topics.map((topic) => [topic, []]));
    for (let round = 0; round < 10; round++) {
      for (const topic of topics) {
        const message = `${topic}|${round}`;
        expected.get(topic).push(message);
        sender.send(message);
      }
    }
    const received = new Map(topics.map((topic) => [topic, []]));
    for (let i = 0; i < 10 * topics.length; i++) {
      const text = (await nextMessage(remote)).data.toString();
      received.get(text.slice(0, text.indexOf('|'))).push(text);
    }
    assert.deepEqual(received, expected);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(remote.queued.length, 0, 'no message twice');
    assert.equal(first.app.getPubSubStats().published, 60);
    assert.equal(second.app.getPubSubStats().delivered, 60);
    assert.equal(first.app.getPubSubStats().state, 'ready');
  });

test('the link reconnects after a Redis restart and sends what was published meanwhile', async (t) => {
  const redis = await startRedis(t);
  const publisher = chatApp(t, redis.url, { reconnectMinDelay: 400, reconnectMaxDelay: 500 });
  const subscriber = chatApp(t, redis.url, { reconnectMinDelay: 10, reconnectMaxDelay: 20 });
  await Promise.all([publisher.ready, subscriber.ready]);
  const remote = await connectClient(t, subscriber.port, {}, '/ws');
  await redis.waitForSubscribers('loopwire:chat', 1);

  await redis.stop();
  await waitFor(() => publisher.events.some((e) => e.startsWith('disconnected:')));
  for (let i = 0; i < 10; i++) publisher.app.publish('chat', `queued ${i}`);
  assert.equal(publisher.app.getPubSubStats().queuedMessages, 10);
  assert.equal(publisher.app.getPubSubStats().state, 'disconnected');
  await redis.start();
  await expectMessages(remote, Array.from({ length: 10 }, (_, i) => `queued ${i}`));
  await waitFor(() => publisher.events.filter((e) => e === 'ready').length === 2);
  const stats = publisher.app.getPubSubStats();
  assert.equal(stats.reconnects, 1);
  assert.equal(stats.queuedMessages, 0);
});

test('a refused connection reaches the error callback, and local pub/sub goes on', async (t) => {
  const port = await freePort();
  const node = chatApp(t, `redis://127.0.0.1:${port}`, { reconnectMinDelay: 10, reconnectMaxDelay: 20 });
  await waitFor(() => node.events.filter((e) => e === 'error:ECONNREFUSED').length >= 2);
  const one = await connectClient(t, node.port, {}, '/ws');
  const two = await connectClient(t, node.port, {}, '/ws');
  one.send('local');
  await expectMessages(two, ['local']);
  assert.notEqual(node.app.getPubSubStats().state, 'ready');
});

test('a refused password reaches the error callback with Redis\'s code', async (t) => {
  const redis = await startRedis(t, ['--requirepass', 's3cret']);
  const wrong = chatApp(t, `redis://:nope@127.0.0.1:${redis.port}`, { reconnectMinDelay: 1000 });
  const right = chatApp(t, `redis://:s3cret@127.0.0.1:${redis.port}`);
  await right.ready;
  await waitFor(() => wrong.events.includes('error:WRONGPASS'));
});

test('rediss:// links over TLS, checking the certificate against tlsCaFile, and refuses one it cannot check',
     async (t) => {
  const { certificates } = require('./helpers/certificates.js');
  const files = certificates();
  const redis = await startRedis(t, ['--tls-cert-file', files.localhost.cert, '--tls-key-file', files.localhost.key,
    '--tls-ca-cert-file', files.ca, '--tls-auth-clients', 'no'], { tlsOnly: true });
  const url = `rediss://localhost:${redis.port}`;
  const first = chatApp(t, url, { tlsCaFile: files.ca });
  const second = chatApp(t, url, { tlsCaFile: files.ca });
  await Promise.all([first.ready, second.ready]);
  const sender = await connectClient(t, first.port, {}, '/ws');
  const remote = await connectClient(t, second.port, {}, '/ws');
  // The subscription is proven by a message that crosses (PUBSUB NUMSUB is not asked over TLS here).
  for (let attempt = 0; attempt < 100 && remote.queued.length === 0; attempt++) {
    sender.send('over tls');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal((await nextMessage(remote)).data.toString(), 'over tls');
  const untrusted = chatApp(t, url, { reconnectMinDelay: 1000 });
  await waitFor(() => untrusted.events.includes('error:TLS'));
  assert.equal(untrusted.app.getPubSubStats().state, 'disconnected');
  assert.throws(() => first.app.connectPubSub(url, { tlsCaFile: 5 }), { name: 'TypeError', message: /tlsCaFile/ });
  // A refused call leaves the link as it was, callbacks included.
  assert.throws(() => first.app.connectPubSub('http://nowhere'), TypeError);
  assert.equal(first.app.getPubSubStats().state, 'ready');
  const readyBefore = first.events.filter((e) => e === 'ready').length;
  await redis.stop();
  await redis.start();
  await waitFor(() => first.events.filter((e) => e === 'ready').length > readyBefore);
  assert.throws(() => first.app.connectPubSub(url, { tlsVerify: 'no' }), { name: 'TypeError', message: /tlsVerify/ });
});

test('connectPubSub checks its arguments', (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.connectPubSub(), { name: 'TypeError', message: /url must be a string/ });
  assert.throws(() => app.connectPubSub(6379), { name: 'TypeError', message: /url must be a string/ });
  assert.throws(() => app.connectPubSub('http://127.0.0.1'), { name: 'TypeError', message: /url: .*redis:\/\// });
  assert.throws(() => app.connectPubSub('redis://h:70000'), { name: 'TypeError', message: /port/ });
  assert.throws(() => app.connectPubSub('redis://h', 5), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => app.connectPubSub('redis://h', { prefix: 1 }), { name: 'TypeError', message: /options.prefix/ });
  assert.throws(() => app.connectPubSub('redis://h', { error: 1 }), { name: 'TypeError', message: /options.error/ });
  assert.throws(() => app.connectPubSub('redis://h', { sharded: 'yes' }),
    { name: 'TypeError', message: /options.sharded must be a boolean/ });
  assert.throws(() => app.connectPubSub('redis://h', { maxQueuedBytes: -1 }),
    { name: 'RangeError', message: /options.maxQueuedBytes/ });
  assert.throws(() => app.connectPubSub('redis://h', { reconnectMinDelay: 0 }),
    { name: 'RangeError', message: /options.reconnectMinDelay/ });
  assert.throws(() => app.connectPubSub('redis://h', { reconnectMinDelay: 500, reconnectMaxDelay: 100 }),
    { name: 'RangeError', message: /reconnectMaxDelay/ });
  assert.throws(() => app.connectPubSub('redis://h', { pingInterval: 'soon' }),
    { name: 'TypeError', message: /options.pingInterval/ });
  assert.deepEqual(app.getPubSubStats(), {
    state: 'closed', published: 0, delivered: 0, dropped: 0, reconnects: 0, errors: 0, queuedMessages: 0,
    queuedBytes: 0,
  });
  assert.equal(app.disconnectPubSub(), app);
});

test('a process whose App was linked ends by itself once the App is closed', async (t) => {
  const redis = await startRedis(t);
  const script = `
    const uWS = require(${JSON.stringify(path.join(__dirname, '../../addon/lib/index.js'))});
    const app = uWS.App();
    app.connectPubSub(${JSON.stringify(redis.url)}, { ready: () => { console.log('ready'); app.close(); } });
  `;
  const result = await runNode(['-e', script], { timeoutMs: 10000 });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'ready');
});
