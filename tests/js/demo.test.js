'use strict';
// The demo that `npm start` runs (examples/js/demo.js): what the /chat/ws upgrade refuses, with the `ws` client;
// the pages' style and scripts, served by app.static at /assets/ under a policy with no inline code; and headless
// Chromium pages, driven over the DevTools protocol, whose scripts run under that policy (the chat's pages in one
// room see each other's messages live, the landing page's counters move). Without chromium the browser tests skip,
// except under CI=true, where they fail.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const WebSocket = require('ws');
const { startExample, startClusterChat } = require('./helpers/example.js');
const { findChromium, launchChromium, waitFor } = require('./helpers/chromium.js');

const chromium = findChromium();
const inCI = Boolean(process.env.CI) && process.env.CI !== 'false' && process.env.CI !== '0';
const MISSING_CHROMIUM = 'chromium not found: install it (bash scripts/deps.sh --install --full) or set CHROMIUM';
// The pages' Content-Security-Policy: their own style and scripts, WebSockets to their own origin, nothing inline.
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'";
const ASSETS = path.join(__dirname, '..', '..', 'examples', 'js', 'demo_assets');

/** The /assets/ files that html links (href=) and loads (src=), in order. */
function assetsOf(html) {
  return [...html.matchAll(/\b(?:src|href)="(\/assets\/[^"]*)"/g)].map((match) => match[1]);
}

/** Asserts that page is HTML under PAGE_POLICY with no inline script or style, and resolves with its text. */
async function strictPage(page) {
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.equal(page.headers.get('content-security-policy'), PAGE_POLICY);
  const html = await page.text();
  assert.doesNotMatch(html, /<style|<script(?![^>]*\bsrc=)|\sstyle=|\son[a-z]+=/i);
  return html;
}

/** Resolves with the HTTP status of a refused WebSocket handshake to url, or 101 when it opened. */
function handshakeStatus(url) {
  return new Promise((resolve, reject) => {
    const client = new WebSocket(url);
    client.once('unexpected-response', (request, response) => { client.terminate(); resolve(response.statusCode); });
    client.once('open', () => { client.terminate(); resolve(101); });
    client.once('error', reject);
  });
}

test('chat: /chat loads only its /assets/; a bad room or name gets 400; text messages only, of 4 KiB at most',
     async (t) => {
  const { port } = await startExample(t, 'demo.js');
  const html = await strictPage(await fetch(`http://127.0.0.1:${port}/chat`));
  assert.deepEqual([...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]),
                   ['/assets/demo.css', '/assets/chat.js']);

  const ws = (query) => `ws://127.0.0.1:${port}/chat/ws?${query}`;
  for (const query of ['name=alice', 'room=r1', 'room=r1&name=', 'room=a%2Fb&name=alice', 'room=r1&name=%20%20',
                       'room=r1&name=a%07b', `room=r1&name=${'x'.repeat(25)}`, `room=${'r'.repeat(33)}&name=alice`]) {
    assert.equal(await handshakeStatus(ws(query)), 400, query);
  }
  assert.equal(await handshakeStatus(ws(`room=r1&name=${encodeURIComponent('Zoë 😀')}`)), 101);

  /** Connects as name to room r1, sends message and resolves with [close code, the messages received]. */
  const sendAndClose = async (name, message) => {
    const client = new WebSocket(ws(`room=r1&name=${name}`));
    t.after(() => client.terminate());
    const messages = [];
    client.on('message', (data) => messages.push(JSON.parse(data)));
    await new Promise((resolve, reject) => { client.once('open', resolve); client.once('error', reject); });
    assert.match(client.extensions, /permessage-deflate/);
    const closed = new Promise((resolve) => client.once('close', (code) => resolve(code)));
    client.send(message);
    return [await closed, messages.map(({ at, ...rest }) => rest)];
  };
  assert.deepEqual(await sendAndClose('alice', 'x'.repeat(4 * 1024 + 1)),
                   [1009, [{ name: 'alice', event: 'joined', online: 1 }]]);
  assert.deepEqual(await sendAndClose('bob', Buffer.from('binary')),
                   [1003, [{ name: 'bob', event: 'joined', online: 1 }]]);
});

test('assets: the pages\' style and scripts, as on disk, with type, ETag and max-age=60; If-None-Match gets 304',
     async (t) => {
  const { port } = await startExample(t, 'demo.js');
  const base = `http://127.0.0.1:${port}`;
  // Every file of the folder is one the pages use, and every one they use is there.
  const used = new Set();
  for (const page of ['/', '/chat']) {
    for (const asset of assetsOf(await strictPage(await fetch(`${base}${page}`)))) used.add(asset);
  }
  assert.deepEqual([...used].sort(), fs.readdirSync(ASSETS).map((file) => `/assets/${file}`).sort());

  const types = { '.css': /^text\/css\b/, '.js': /^text\/javascript\b/ };
  // The plain files: the server compresses them in the background too, and a coded variant has an entity-tag of its
  // own, so a request that accepts a coding may get one tag now and another once the variant is ready.
  const identity = { 'accept-encoding': 'identity' };
  for (const asset of used) {
    const served = await fetch(`${base}${asset}`, { headers: identity });
    assert.equal(served.status, 200, asset);
    assert.match(served.headers.get('content-type'), types[path.extname(asset)], asset);
    assert.equal(served.headers.get('cache-control'), 'public, max-age=60', asset);
    assert.ok(served.headers.get('last-modified'), asset);
    const etag = served.headers.get('etag');
    assert.match(etag, /^"[^"]+"$/, asset);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(fs.readFileSync(path.join(ASSETS, path.basename(asset)))),
              `${asset} is served as it is on disk`);
    // A browser that kept it past its max-age asks again, and gets a 304 without the body while it is unchanged.
    const again = await fetch(`${base}${asset}`, { headers: { ...identity, 'if-none-match': etag } });
    assert.equal(again.status, 304, asset);
    assert.equal(again.headers.get('etag'), etag, asset);
    assert.equal(again.headers.get('cache-control'), 'public, max-age=60', asset);
    assert.equal((await again.arrayBuffer()).byteLength, 0, asset);
    const changed = await fetch(`${base}${asset}`, { headers: { ...identity, 'if-none-match': '"another"' } });
    assert.equal(changed.status, 200, asset);
    await changed.arrayBuffer();
  }
  // Nothing but the folder's files: not the demo's own source beside it, nor a file it does not have.
  for (const [target, status] of [['/assets/nothing.js', 404], ['/assets/..%2Fdemo.js', 400], ['/assets/', 404]]) {
    const refused = await fetch(`${base}${target}`);
    assert.equal(refused.status, status, target);
    await refused.arrayBuffer();
  }
});

test('chat: Chromium pages in one room see joins, messages (the sender\'s too) and leaves live',
     { skip: !chromium && !inCI && `${MISSING_CHROMIUM} (under CI=true this fails)` }, async (t) => {
  if (!chromium) assert.fail(MISSING_CHROMIUM);
  const { port } = await startExample(t, 'demo.js');
  const browser = await launchChromium(t, chromium);
  const chat = (name) => `http://127.0.0.1:${port}/chat?room=r1&name=${name}`;
  const log = "document.getElementById('log')?.innerText ?? ''";
  /** Waits until the chat log that page shows contains `expected`. */
  const logMatches = (page, expected, what) => waitFor(async () => (await page.evaluate(log)).includes(expected), what);

  const alice = await browser.openPage(chat('alice'));
  await logMatches(alice, 'alice joined (1 online)', 'alice sees her own join');
  const bob = await browser.openPage(chat('bob'));
  await logMatches(bob, 'bob joined (2 online)', 'bob sees his own join');
  await logMatches(alice, 'bob joined (2 online)', 'alice sees bob join');
  assert.equal(await bob.evaluate("document.getElementById('status').textContent"), 'connected');

  // Alice types and sends as a user would; the text is shown as text, never as markup.
  const text = 'hello bob <img src=x onerror="document.title=1">';
  await alice.evaluate(`document.getElementById('text').value = ${JSON.stringify(text)};
                        document.getElementById('say').requestSubmit();`);
  await logMatches(bob, `alice: ${text}`, 'bob sees the message');
  await logMatches(alice, `alice: ${text}`, 'alice sees her own message');
  assert.equal(await bob.evaluate("document.querySelectorAll('#log img').length"), 0);

  // Without a name and room in the URL, the page asks for them (the probe may see the page it submitted to).
  const carol = await browser.openPage(`http://127.0.0.1:${port}/chat`);
  await waitFor(() => carol.evaluate(`(() => {
    if (location.search.includes('name=carol')) return true;
    const join = document.getElementById('join');
    if (!join || join.hidden) return false;
    join.elements.name.value = 'carol';
    join.elements.room.value = 'r1';
    join.requestSubmit();
    return true;
  })()`), 'carol fills in the join form');
  await logMatches(bob, 'carol joined (3 online)', 'bob sees carol join through the form');

  await alice.close();
  await logMatches(bob, 'alice left (2 online)', 'bob sees alice leave');
  await logMatches(carol, 'alice left (2 online)', 'carol sees alice leave');
  // The style applies, and no script or style was refused by the policy nor failed to load.
  assert.equal(await bob.evaluate("getComputedStyle(document.getElementById('log')).overflowY"), 'auto');
  for (const page of [alice, bob, carol]) {
    assert.deepEqual(page.exceptions, []);
    assert.deepEqual(page.errors, []);
  }
});

test('home: / links every part of the demo and the source of every example; /stats counts requests, connections and the Redis link', async (t) => {
  const { port } = await startExample(t, 'demo.js');
  const html = await strictPage(await fetch(`http://127.0.0.1:${port}/`));
  assert.deepEqual(assetsOf(html), ['/assets/demo.css', '/assets/home.js']);
  for (const link of ['/hello', '/users/42', '/stream', '/declarative/you', '/chat?room=lobby', '/stats']) {
    assert.match(html, new RegExp(`href="${link.replace('?', '\\?')}"`), link);
    const target = await fetch(`http://127.0.0.1:${port}${link}`);
    assert.equal(target.status, 200, link);
    await target.arrayBuffer();
  }
  // Every example of the repository is listed, and its link serves its source as it is on disk.
  const examples = [];
  for (const [folder, extension] of [['js', '.js'], ['cpp', '.cpp']]) {
    const directory = path.join(__dirname, '..', '..', 'examples', folder);
    for (const file of fs.readdirSync(directory).filter((name) => name.endsWith(extension))) {
      examples.push({ link: `/examples/${folder}/${file}`, source: fs.readFileSync(path.join(directory, file)) });
    }
  }
  assert.ok(examples.length >= 15, `${examples.length} examples`);
  // Exactly those: the files of examples/js/demo_assets/ are the demo's, not examples.
  assert.deepEqual([...html.matchAll(/href="(\/examples\/[^"]*)"/g)].map((match) => match[1]).sort(),
                   examples.map(({ link }) => link).sort());
  for (const { link, source } of examples) {
    assert.match(html, new RegExp(`href="${link}"`), link);
    const served = await fetch(`http://127.0.0.1:${port}${link}`);
    assert.equal(served.status, 200, link);
    assert.match(served.headers.get('content-type'), /^text\/plain/);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(source), `${link} is served as it is on disk`);
  }
  for (const missing of ['/examples/js/nothing.js', '/examples/js/..%2F..%2Fpackage.json', '/examples/lib/index.js']) {
    const refused = await fetch(`http://127.0.0.1:${port}${missing}`);
    assert.equal(refused.status, 404, missing);
    await refused.arrayBuffer();
  }
  const stats = await (await fetch(`http://127.0.0.1:${port}/stats`)).json();
  assert.deepEqual(Object.keys(stats).sort(),
    ['connections', 'deliveries', 'fromOthers', 'link', 'messagesPerSecond', 'requestsPerSecond'].sort());
  assert.equal(stats.link, 'off');
  assert.equal(stats.connections, 0);
});

test('over HTTPS, Chromium loads the chat and its assets over HTTP/2 (ALPN h2), and its WebSocket chat works',
     { skip: !chromium && !inCI && `${MISSING_CHROMIUM} (under CI=true this fails)` }, async (t) => {
  if (!chromium) assert.fail(MISSING_CHROMIUM);
  const { certificates } = require('./helpers/certificates.js');
  const certs = certificates();
  const { port } = await startExample(t, 'demo.js',
                                      { TLS_KEY_FILE: certs.localhost.key, TLS_CERT_FILE: certs.localhost.cert });
  const browser = await launchChromium(t, chromium, { trustedCertificate: certs.localhost.cert });
  const log = "document.getElementById('log')?.innerText ?? ''";
  const logMatches = (page, expected, what) => waitFor(async () => (await page.evaluate(log)).includes(expected), what);
  const protocols = `JSON.stringify(performance.getEntriesByType('navigation').concat(
                       performance.getEntriesByType('resource')).map((entry) => [new URL(entry.name).pathname,
                                                                                  entry.nextHopProtocol]))`;

  const hana = await browser.openPage(`https://localhost:${port}/chat?room=r1&name=hana`);
  await logMatches(hana, 'hana joined (1 online)', 'hana sees her own join');
  const ivan = await browser.openPage(`https://localhost:${port}/chat?room=r1&name=ivan`);
  await logMatches(ivan, 'ivan joined (2 online)', 'ivan sees his own join');
  assert.deepEqual(JSON.parse(await ivan.evaluate(protocols)),
                   [['/chat', 'h2'], ['/assets/demo.css', 'h2'], ['/assets/chat.js', 'h2']]);
  await hana.evaluate(`document.getElementById('text').value = 'over h2';
                       document.getElementById('say').requestSubmit();`);
  await logMatches(ivan, 'hana: over h2', 'ivan sees hana\'s message');
  for (const page of [hana, ivan]) {
    assert.deepEqual(page.exceptions, []);
    assert.deepEqual(page.errors, []);
  }
});

test('home: in Chromium, the counters are live, the examples listed, and the Redis link shows ready, then down',
     { skip: !chromium && !inCI && `${MISSING_CHROMIUM} (under CI=true this fails)` }, async (t) => {
  if (!chromium) assert.fail(MISSING_CHROMIUM);
  const { startRedis } = require('./helpers/redis.js');
  const redis = await startRedis(t);
  const { port } = await startExample(t, 'demo.js', { REDIS_URL: redis.url });
  const browser = await launchChromium(t, chromium);
  const home = await browser.openPage(`http://127.0.0.1:${port}/`);
  const cell = (id) => home.evaluate(`document.getElementById('${id}').textContent`);
  await waitFor(async () => (await cell('link')) === 'ready', 'the page shows the Redis link ready');
  await waitFor(async () => Number(await cell('connections')) >= 1, 'the page counts its own WebSocket');
  // Requests made now show up in the next second's rate.
  const load = setInterval(() => { fetch(`http://127.0.0.1:${port}/hello`).then((r) => r.arrayBuffer(), () => {}); }, 20);
  t.after(() => clearInterval(load));
  await waitFor(async () => Number((await cell('requestsPerSecond')).replace(/,/g, '')) > 0,
    'the page shows requests per second');
  clearInterval(load);
  // A chat message counts as a message and as deliveries.
  const chat = await browser.openPage(`http://127.0.0.1:${port}/chat?room=r1&name=dana`);
  await waitFor(async () => (await chat.evaluate("document.getElementById('status').textContent")) === 'connected',
    'the chat connects');
  // Chat messages go on being typed until the page has shown them in a second's rate.
  const say = () => chat.evaluate(
    `document.getElementById('text').value = 'hi'; document.getElementById('say').requestSubmit();`);
  await say();
  const talk = setInterval(() => { say().catch(() => {}); }, 100);
  t.after(() => clearInterval(talk));
  await waitFor(async () => Number(await cell('messagesPerSecond')) > 0, 'the page shows messages per second');
  clearInterval(talk);
  await waitFor(async () => Number(await cell('deliveries')) >= 2, 'the page counts the chat\'s deliveries');
  await waitFor(async () => Number(await cell('connections')) >= 2, 'the page counts the chat\'s WebSocket');
  // The examples are listed with links to their sources.
  assert.ok(Number(await home.evaluate("document.querySelectorAll('#sources a[href^=\"/examples/\"]').length")) >= 15);
  // Redis goes away: the page says the link is down.
  await redis.stop();
  await waitFor(async () => ['disconnected', 'connecting'].includes(await cell('link')),
    'the page shows the Redis link down');
  assert.equal(await home.evaluate('getComputedStyle(document.body).maxWidth'), '736px');  // 46rem
  assert.equal(await chat.evaluate('getComputedStyle(document.body).maxWidth'), '640px');  // body.chat's 40rem
  for (const page of [home, chat]) {
    assert.deepEqual(page.exceptions, []);
    assert.deepEqual(page.errors, []);
  }
});

test('cluster chat: in Chromium, a message typed on one demo process appears on the other (examples/js/cluster_chat.js)',
     { skip: !chromium && !inCI && `${MISSING_CHROMIUM} (under CI=true this fails)` }, async (t) => {
  if (!chromium) assert.fail(MISSING_CHROMIUM);
  const { startRedis } = require('./helpers/redis.js');
  const redis = await startRedis(t);
  const ports = await startClusterChat(t, redis.url);
  const browser = await launchChromium(t, chromium);
  const log = "document.getElementById('log')?.innerText ?? ''";
  const logMatches = (page, expected, what) => waitFor(async () => (await page.evaluate(log)).includes(expected), what);
  const erin = await browser.openPage(`http://127.0.0.1:${ports[0]}/chat?room=r1&name=erin`);
  await logMatches(erin, 'erin joined', 'erin sees her own join');
  const frank = await browser.openPage(`http://127.0.0.1:${ports[1]}/chat?room=r1&name=frank`);
  await logMatches(frank, 'frank joined', 'frank sees his own join');
  await redis.waitForSubscribers('loopwire-demo:room/r1', 2);
  await erin.evaluate(`document.getElementById('text').value = 'hello across processes';
                       document.getElementById('say').requestSubmit();`);
  await logMatches(frank, 'erin: hello across processes', 'frank, on the other process, sees erin\'s message');
  await frank.evaluate(`document.getElementById('text').value = 'and back';
                        document.getElementById('say').requestSubmit();`);
  await logMatches(erin, 'frank: and back', 'erin sees frank\'s answer');
  for (const page of [erin, frank]) {
    assert.deepEqual(page.exceptions, []);
    assert.deepEqual(page.errors, []);
  }
});

test('chat with Redis: in Chromium, a page that joins later gets the room\'s recent lines first, each once and in order',
     { skip: !chromium && !inCI && `${MISSING_CHROMIUM} (under CI=true this fails)` }, async (t) => {
  if (!chromium) assert.fail(MISSING_CHROMIUM);
  const { startRedis } = require('./helpers/redis.js');
  const redis = await startRedis(t);
  const { port } = await startExample(t, 'demo.js', { REDIS_URL: redis.url });
  const browser = await launchChromium(t, chromium);
  const log = "document.getElementById('log')?.innerText ?? ''";
  const logMatches = (page, expected, what) => waitFor(async () => (await page.evaluate(log)).includes(expected), what);
  const occurrences = (text, part) => text.split(part).length - 1;
  const gail = await browser.openPage(`http://127.0.0.1:${port}/chat?room=r2&name=gail`);
  await logMatches(gail, 'gail joined (1 online)', 'gail sees her own join');
  for (const text of ['first line', 'second line']) {
    await gail.evaluate(`document.getElementById('text').value = ${JSON.stringify(text)};
                         document.getElementById('say').requestSubmit();`);
    await logMatches(gail, `gail: ${text}`, `gail sees "${text}"`);
  }
  const hank = await browser.openPage(`http://127.0.0.1:${port}/chat?room=r2&name=hank`);
  await logMatches(hank, 'hank joined (2 online)', 'hank sees his own join');
  await logMatches(hank, 'gail: second line', 'hank gets the lines from before he joined');
  const seen = await hank.evaluate(log);
  assert.ok(seen.indexOf('gail joined') < seen.indexOf('gail: first line'), seen);
  assert.ok(seen.indexOf('gail: first line') < seen.indexOf('gail: second line'), seen);
  assert.ok(seen.indexOf('gail: second line') < seen.indexOf('hank joined'), seen);
  await logMatches(gail, 'hank joined (2 online)', 'gail sees hank join');
  const mine = await gail.evaluate(log);
  for (const line of ['gail joined', 'gail: first line', 'gail: second line', 'hank joined']) {
    assert.equal(occurrences(mine, line), 1, `${line} in ${mine}`);
    assert.equal(occurrences(seen, line), 1, `${line} in ${seen}`);
  }
  for (const page of [gail, hank]) {
    assert.deepEqual(page.exceptions, []);
    assert.deepEqual(page.errors, []);
  }
});
