'use strict';
// SSLApp: HTTPS and WSS with Node's own clients (https, tls, the `ws` package), key material from files and from
// memory, the errors about it at SSLApp(), server names (SNI) and client certificates. The addon uses the
// OpenSSL of the node executable, so these also prove that one process holds one OpenSSL.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');
const WebSocket = require('ws');
const uWS = require('../../addon/lib/index.js');
const { certificates } = require('./helpers/certificates.js');

const certs = certificates();
const ca = fs.readFileSync(certs.ca);

/** An SSLApp with options, set up by setup(app), listening on 127.0.0.1 port 0; closed when the test ends. */
function listenTls(t, options, setup) {
  const app = uWS.SSLApp(options);
  setup(app);
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token, 'listen failed');
  t.after(() => app.close());
  return { app, port: uWS.us_socket_local_port(token) };
}

const localhostFiles = { key_file_name: certs.localhost.key, cert_file_name: certs.localhost.cert };

/** GET https://localhost:port/path, trusting the test CA; resolves with { status, body }. */
function httpsGet(port, path = '/', extra = {}) {
  return new Promise((resolve, reject) => {
    const request = https.get({ host: '127.0.0.1', port, path, servername: 'localhost', ca, agent: false, ...extra },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString() }));
      });
    request.on('error', reject);
  });
}

/** Opens a TLS connection asking for servername; resolves with the subject's CN of the certificate it got. */
function commonNameFor(port, servername) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const name = socket.getPeerCertificate().subject.CN;
      socket.end();
      resolve(name);
    });
    socket.on('error', reject);
  });
}

test('an SSLApp answers https with the key and certificate from files', async (t) => {
  const { port } = listenTls(t, localhostFiles, (app) => {
    app.get('/*', (res, req) => res.end(`secure ${req.getUrl()}`));
  });
  assert.deepEqual(await httpsGet(port, '/a'), { status: 200, body: 'secure /a' });
  // Many requests on one keep-alive connection.
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  for (let i = 0; i < 5; i++) assert.equal((await httpsGet(port, `/${i}`, { agent })).body, `secure /${i}`);
});

test('key and cert may be PEM in memory, as strings or Buffers', async (t) => {
  const key = fs.readFileSync(certs.localhost.key);
  const cert = fs.readFileSync(certs.localhost.cert);
  for (const options of [{ key: key.toString(), cert: cert.toString() }, { key, cert },
    { key: new Uint8Array(key), cert: cert.buffer.slice(cert.byteOffset, cert.byteOffset + cert.length) }]) {
    const { port } = listenTls(t, options, (app) => app.get('/*', (res) => res.end('from memory')));
    assert.deepEqual(await httpsGet(port), { status: 200, body: 'from memory' });
  }
});

test('an encrypted key opens with its passphrase', async (t) => {
  const { port } = listenTls(t, { ...localhostFiles, key_file_name: certs.encryptedKey, passphrase: certs.passphrase },
    (app) => app.get('/*', (res) => res.end('unlocked')));
  assert.equal((await httpsGet(port)).body, 'unlocked');
});

test('SSLApp throws at once, naming the option, for material that does not load', () => {
  const cases = [
    [{ ...localhostFiles, key_file_name: '/nonexistent/key.pem' }, /key_file_name: cannot read '\/nonexistent\/key.pem'/],
    [{ ...localhostFiles, cert_file_name: '/nonexistent/cert.pem' }, /cert_file_name: cannot read/],
    [{ cert_file_name: certs.localhost.cert }, /key_file_name: no private key given/],
    [{ ...localhostFiles, key_file_name: certs.encryptedKey, passphrase: 'wrong' }, /passphrase/],
    [{ ...localhostFiles, key_file_name: certs.encryptedKey }, /passphrase: .* no passphrase was given/],
    [{ ...localhostFiles, key_file_name: certs.other.key }, /does not match the certificate/],
    [{ ...localhostFiles, key_file_name: undefined, key: 'not a key' }, /key: no PEM private key found/],
    [{ ...localhostFiles, ssl_ciphers: 'NO-SUCH-CIPHER' }, /ssl_ciphers/],
    [{ ...localhostFiles, ssl_groups: 'NO-SUCH-GROUP' }, /ssl_groups: OpenSSL .* refuses 'NO-SUCH-GROUP'/],
    [{ ...localhostFiles, ca_file_name: '/nonexistent/ca.pem' }, /ca_file_name: cannot read/],
    [{ ...localhostFiles, dh_params_file_name: '/nonexistent/dh.pem' }, /dh_params_file_name: cannot read/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => uWS.SSLApp(options), (error) => error.constructor === Error && message.test(error.message),
      JSON.stringify(options));
  }
});

/**
 * The key-exchange group a TLS 1.3 connection negotiated, as the client saw it, with the client's groups. Node 22
 * names no KEM group (undefined for X25519MLKEM768); later Nodes do.
 */
function negotiatedGroup(port, ecdhCurve) {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, servername: 'localhost', ca, ...(ecdhCurve ? { ecdhCurve } : {}) };
    const socket = tls.connect(options, () => {
      const { name } = socket.getEphemeralKeyInfo();
      socket.end();
      resolve(name);
    });
    socket.on('error', reject);
  });
}

// OpenSSL 3.5 (Node 22.20+, 24, 26) has the hybrid post-quantum group X25519MLKEM768, and its clients send key
// shares for it and for X25519; loopwire prefers X25519, which costs an idle connection 6.6 KB less.
const [opensslMajor, opensslMinor] = process.versions.openssl.split('.').map(Number);
const opensslHasHybridGroup = opensslMajor > 3 || (opensslMajor === 3 && opensslMinor >= 5);

test('key exchange: X25519 first, the hybrid group for a client that offers only it, ssl_groups to prefer it',
  { skip: !opensslHasHybridGroup && `OpenSSL ${process.versions.openssl} has no hybrid group` }, async (t) => {
    const byDefault = listenTls(t, localhostFiles, (app) => app.get('/*', (res) => res.end('x')));
    const hybrid = ['X25519MLKEM768', undefined];
    assert.equal(await negotiatedGroup(byDefault.port), 'X25519');
    assert.ok(hybrid.includes(await negotiatedGroup(byDefault.port, 'X25519MLKEM768')));
    assert.equal(await negotiatedGroup(byDefault.port, 'P-256'), 'prime256v1');
    const hybridFirst = listenTls(t, { ...localhostFiles, ssl_groups: 'X25519MLKEM768/X25519:secp256r1' },
      (app) => app.get('/*', (res) => res.end('x')));
    // The same client as the first connection above, which got X25519 from the default order.
    assert.ok(hybrid.includes(await negotiatedGroup(hybridFirst.port)));
  });

test('SSLApp refuses options of the wrong type with a TypeError naming the field', () => {
  assert.throws(() => uWS.SSLApp(), { name: 'TypeError', message: /SSLApp: options must be an object/ });
  assert.throws(() => uWS.SSLApp({ key_file_name: 5 }), { name: 'TypeError', message: /options\.key_file_name/ });
  assert.throws(() => uWS.SSLApp({ ...localhostFiles, cert: {} }), { name: 'TypeError', message: /options\.cert/ });
  assert.throws(() => uWS.SSLApp({ ...localhostFiles, passphrase: 'a\0b' }),
    { name: 'TypeError', message: /options\.passphrase must not contain a NUL/ });
  // A getter that throws: its exception, not a crash.
  assert.throws(() => uWS.SSLApp({ get key_file_name() { throw new RangeError('from a getter'); } }),
    { name: 'RangeError', message: 'from a getter' });
});

test('server names pick their certificates; a wildcard covers one label', async (t) => {
  const { port } = listenTls(t, localhostFiles, (app) => {
    app.addServerName('other.test', { key_file_name: certs.other.key, cert_file_name: certs.other.cert })
      .addServerName('*.wild.test', { key: fs.readFileSync(certs.wildcard.key), cert: fs.readFileSync(certs.wildcard.cert) })
      .get('/*', (res) => res.end('named'));
  });
  assert.equal(await commonNameFor(port, 'other.test'), 'other.test');
  assert.equal(await commonNameFor(port, 'a.wild.test'), '*.wild.test');
  assert.equal(await commonNameFor(port, 'a.b.wild.test'), 'localhost');
  assert.equal(await commonNameFor(port, 'unknown.test'), 'localhost');
  // A client that verifies other.test is satisfied.
  const response = await httpsGet(port, '/', { servername: 'other.test' });
  assert.deepEqual(response, { status: 200, body: 'named' });
});

test('missingServerName may add the name for the handshake that asked for it', async (t) => {
  const asked = [];
  let added = false;
  const { app, port } = listenTls(t, localhostFiles, (server) => {
    server.missingServerName((hostname) => {
      asked.push(hostname);
      if (hostname === 'other.test' && !added) {
        added = true;
        server.addServerName(hostname, { key_file_name: certs.other.key, cert_file_name: certs.other.cert });
      }
    }).get('/*', (res) => res.end());
  });
  assert.equal(await commonNameFor(port, 'other.test'), 'other.test');
  assert.equal(await commonNameFor(port, 'other.test'), 'other.test');
  assert.equal(await commonNameFor(port, 'nobody.test'), 'localhost');
  assert.deepEqual(asked, ['other.test', 'nobody.test']);
  app.removeServerName('other.test');
  assert.equal(await commonNameFor(port, 'other.test'), 'localhost');
  assert.deepEqual(asked, ['other.test', 'nobody.test', 'other.test']);
});

test('addServerName with bad material throws on an SSLApp and is ignored by a plain App', () => {
  const app = uWS.SSLApp(localhostFiles);
  assert.throws(() => app.addServerName('x.test', { key_file_name: '/nonexistent', cert_file_name: certs.other.cert }),
    { name: 'Error', message: /app.addServerName: key_file_name: cannot read/ });
  assert.throws(() => app.addServerName('x.test', { key: 1 }), { name: 'TypeError', message: /options\.key/ });
  app.close();
  const plain = uWS.App();
  assert.equal(plain.addServerName('x.test', { key_file_name: '/nonexistent' }), plain);
  plain.close();
});

test('res.getX509Certificate returns the client certificate a client sent', async (t) => {
  const { port } = listenTls(t, { ...localhostFiles, ca_file_name: certs.ca }, (app) => {
    app.get('/*', (res) => {
      const pem = res.getX509Certificate();
      res.end(pem === undefined ? 'none' : new crypto.X509Certificate(pem).subject);
    });
  });
  const withCertificate = await httpsGet(port, '/', {
    key: fs.readFileSync(certs.client.key), cert: fs.readFileSync(certs.client.cert),
  });
  assert.equal(withCertificate.body, 'CN=test client');
  assert.equal((await httpsGet(port)).body, 'none');
  // A certificate the CA did not sign is refused.
  await assert.rejects(httpsGet(port, '/', {
    key: fs.readFileSync(certs.stranger.key), cert: fs.readFileSync(certs.stranger.cert),
  }));
});

test('WebSockets work over TLS (wss) with the ws client', async (t) => {
  const { port } = listenTls(t, localhostFiles, (app) => {
    app.ws('/*', { maxPayloadLength: 1 << 20, message: (ws, message, isBinary) => ws.send(message, isBinary) });
  });
  const client = new WebSocket(`wss://localhost:${port}/`, { ca });
  t.after(() => client.terminate());
  await new Promise((resolve, reject) => { client.once('open', resolve); client.once('error', reject); });
  const echoed = new Promise((resolve) => client.once('message', (data) => resolve(data.toString())));
  client.send('over tls');
  assert.equal(await echoed, 'over tls');
  const big = crypto.randomBytes(200 * 1024);
  const echoedBig = new Promise((resolve) => client.once('message', (data) => resolve(data)));
  client.send(big);
  assert.ok(big.equals(await echoedBig));
});

test('a client speaking plain HTTP to the TLS port is closed and the server goes on', async (t) => {
  const { port } = listenTls(t, { ...localhostFiles, ssl_prefer_low_memory_usage: true },
    (app) => app.get('/*', (res) => res.end('fine')));
  await new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('close', resolve);
    socket.on('error', () => {});
    socket.resume();
  });
  assert.equal((await httpsGet(port)).body, 'fine');
});

test('domain() gives a server name routes of its own', async (t) => {
  const { port } = listenTls(t, localhostFiles, (app) => {
    app.addServerName('other.test', { key_file_name: certs.other.key, cert_file_name: certs.other.cert })
      .get('/*', (res) => res.end('default'))
      .domain('other.test').get('/', (res) => res.end('other'))
      .domain('').get('/after', (res) => res.end('default after'));
  });
  const other = { servername: 'other.test', host: '127.0.0.1' };
  assert.deepEqual(await httpsGet(port, '/', other), { status: 200, body: 'other' });
  assert.equal((await httpsGet(port, '/after', other)).status, 404);
  assert.deepEqual(await httpsGet(port, '/'), { status: 200, body: 'default' });
  assert.deepEqual(await httpsGet(port, '/after'), { status: 200, body: 'default after' });
  assert.throws(() => uWS.SSLApp(localhostFiles).domain(5), { name: 'TypeError', message: /serverName/ });
});

test('a missingServerName callback that closes the App mid-handshake ends it without a crash', async (t) => {
  let token = false;
  const app = uWS.SSLApp(localhostFiles);
  t.after(() => app.close());
  app.missingServerName(() => app.close()).get('/*', (res) => res.end('unreachable'));
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  const port = uWS.us_socket_local_port(token);
  await assert.rejects(commonNameFor(port, 'closing.test'));
  await assert.rejects(httpsGet(port));
});
