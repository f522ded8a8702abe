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

/** app.getHistory as a promise. */
function getHistory(app, topic, since) {
  return new Promise((resolve, reject) => {
    app.getHistory(topic, since, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** The position and the message of a message stamped "<epoch>:<offset>:<message>". */
function unstamp(data) {
  const text = Buffer.from(data).toString();
  const first = text.indexOf(':');
  const second = text.indexOf(':', first + 1);
  return { epoch: text.slice(0, first), offset: Number(text.slice(first + 1, second)), text: text.slice(second + 1) };
}

test('history: messages arrive stamped, and a client that comes back is given what it missed', async (t) => {
  const redis = await startRedis(t);
  const history = { size: 100, ttlSeconds: 600 };
  const first = chatApp(t, redis.url, { history });
  const second = chatApp(t, redis.url, { history });
  await Promise.all([first.ready, second.ready]);
  const sender = await connectClient(t, first.port, {}, '/ws');
  const remote = await connectClient(t, second.port, {}, '/ws');
  await redis.waitForSubscribers('loopwire:chat', 2);
  for (let i = 1; i <= 5; i++) sender.send(`m${i}`);
  let position = null;
  for (let i = 1; i <= 5; i++) {
    const stamped = unstamp((await nextMessage(remote)).data);
    assert.equal(stamped.offset, i);
    assert.equal(stamped.text, `m${i}`);
    position = { epoch: stamped.epoch, offset: stamped.offset };
    // The sender's App delivers the message when Redis has numbered it: to the sender too.
    assert.deepEqual(unstamp((await nextMessage(sender)).data), stamped);
  }
  remote.close();
  for (let i = 6; i <= 8; i++) first.app.publish('chat', `m${i}`);
  for (let i = 6; i <= 8; i++) assert.equal(unstamp((await nextMessage(sender)).data).offset, i);  // in Redis now
  const missed = await getHistory(second.app, 'chat', position);
  assert.equal(missed.recovered, true);
  assert.equal(missed.epoch, position.epoch);
  assert.equal(missed.offset, 8);
  assert.deepEqual(missed.messages.map((m) => m.offset), [6, 7, 8]);
  assert.deepEqual(missed.messages.map((m) => unstamp(m.message).text), ['m6', 'm7', 'm8']);
  assert.ok(missed.messages.every((m) => m.message instanceof ArrayBuffer && m.isBinary === false));
  const lost = await getHistory(second.app, 'chat', { epoch: 'another', offset: 3 });
  assert.equal(lost.recovered, false);
  assert.deepEqual(lost.messages, []);
  const whole = await getHistory(second.app, 'chat', null);
  assert.equal(whole.messages.length, 8);
});

test('history on a Redis Cluster: each topic keeps its history on its slot\'s master', async (t) => {
  const cluster = await startRedisCluster(t);
  const topics = ['alpha', 'beta', 'gamma', 'delta'];
  const apps = [cluster.nodes[0], cluster.nodes[2]].map((node) => {
    const app = uWS.App();
    t.after(() => app.close());
    let ready = 0;
    app.connectPubSub(node.url, { sharded: true, history: { size: 10 }, ready: () => { ready++; }, error: () => {} });
    return { app, isReady: () => ready > 0 };
  });
  await waitFor(() => apps.every((a) => a.isReady()));
  await new Promise((r) => setTimeout(r, 200));  // every master's link
  for (const topic of topics) for (let i = 1; i <= 3; i++) apps[0].app.publish(topic, `${topic} ${i}`);
  // A read from the other App once the first one's publishes are in (they are, when its own read says so).
  for (const topic of topics) {
    const deadline = Date.now() + 5000;
    while ((await getHistory(apps[0].app, topic, null)).offset !== 3) {
      assert.ok(Date.now() < deadline, `${topic}'s publishes never reached its history`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  for (const topic of topics) {
    const read = await getHistory(apps[1].app, topic, null);
    assert.equal(read.recovered, true, topic);
    assert.deepEqual(read.messages.map((m) => unstamp(m.message).text), [1, 2, 3].map((i) => `${topic} ${i}`));
  }
});

test('history options and getHistory check their arguments', async (t) => {
  const app = uWS.App();
  t.after(() => app.close());
  assert.throws(() => app.getHistory('chat', null, () => {}), { code: 'NOT_CONNECTED', message: /not connected/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: 5 }),
    { name: 'TypeError', message: /options.history must be an object/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: {} }),
    { name: 'TypeError', message: /options.history.size/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: { size: 0 } }),
    { name: 'RangeError', message: /options.history.size must be at least 1/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: { size: 2e6 } }),
    { name: 'RangeError', message: /options.history.size/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: { size: 5, ttlSeconds: -1 } }),
    { name: 'RangeError', message: /options.history.ttlSeconds/ });
  assert.throws(() => app.connectPubSub('redis://h', { history: { size: 5, topicPrefix: 3 } }),
    { name: 'TypeError', message: /options.history.topicPrefix must be a string/ });
  const redis = await startRedis(t);
  let ready;
  const connected = new Promise((resolve) => { ready = resolve; });
  app.connectPubSub(redis.url, { history: { size: 5, topicPrefix: 'room/' }, ready: () => ready() });
  await connected;
  assert.throws(() => app.getHistory(1, null, () => {}), { name: 'TypeError', message: /topic must be a string/ });
  assert.throws(() => app.getHistory('room/1', 5, () => {}), { name: 'TypeError', message: /since must be/ });
  assert.throws(() => app.getHistory('room/1', { epoch: 1, offset: 0 }, () => {}),
    { name: 'TypeError', message: /since.epoch must be a string/ });
  assert.throws(() => app.getHistory('room/1', { epoch: 'e', offset: -1 }, () => {}),
    { name: 'RangeError', message: /since.offset/ });
  assert.throws(() => app.getHistory('room/1', { epoch: 'e', offset: 1.5 }, () => {}),
    { name: 'RangeError', message: /since.offset/ });
  assert.throws(() => app.getHistory('room/1', null), { name: 'TypeError', message: /callback must be a function/ });
  await assert.rejects(getHistory(app, 'chat', null), { code: 'NOHISTORY' });
  assert.equal((await getHistory(app, 'room/1', null)).epoch, '');
});

test('a read still waiting when its link is ended gets DISCONNECTED, after the call that ended it', async (t) => {
  const redis = await startRedis(t);
  const app = uWS.App();
  t.after(() => app.close());
  const connect = () => new Promise((resolve) => {
    app.connectPubSub(redis.url, { history: { size: 5 }, ready: () => resolve() });
  });
  await connect();
  const order = [];
  app.getHistory('chat', null, (error) => order.push(`first ${error && error.code}`));
  app.connectPubSub(redis.url, { history: { size: 5 } });
  app.getHistory('chat', null, (error) => order.push(`second ${error && error.code}`));
  app.disconnectPubSub();
  order.push('returned');
  const deadline = Date.now() + 2000;
  while (order.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(order, ['returned', 'first DISCONNECTED', 'second DISCONNECTED']);
  await connect();
  assert.equal((await getHistory(app, 'chat', null)).epoch, '', 'the next link reads as before');
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
