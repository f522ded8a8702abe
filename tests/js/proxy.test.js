'use strict';
// Issue 23: the PROXY protocol from JavaScript: an optional header by default, as uWebSockets.js, version 1 too and
// before TLS on an SSLApp; getProxiedRemoteAddress* on res and ws; the proxy_protocol and proxy_trusted_sources
// options and their errors.

const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const tls = require('node:tls');
const WebSocket = require('ws');
const uWS = require('../../addon/lib/index.js');
const { certificates } = require('./helpers/certificates.js');

const SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
// Version 2, PROXY, TCP over IPv4: 203.0.113.7:51234 to 192.0.2.1:443.
const V2 = Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x11, 0x00, 0x0c, 203, 0, 113, 7, 192, 0, 2, 1, 0xc8, 0x22, 0x01, 0xbb])]);
const V1 = Buffer.from('PROXY TCP6 2001:db8::7 2001:db8::1 5000 80\r\n');
const REQUEST = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

const text = (arrayBuffer) => Buffer.from(arrayBuffer).toString();

function listenWith(t, app) {
  app.get('/*', (res) => {
    res.end(`${text(res.getProxiedRemoteAddressAsText())}|${res.getProxiedRemotePort()}|` +
            `${res.getProxiedRemoteAddress().byteLength}|${text(res.getRemoteAddressAsText())}`);
  });
  let token = false;
  app.listen('127.0.0.1', 0, (listenSocket) => { token = listenSocket; });
  assert.ok(token, 'listen');
  t.after(() => app.close());
  return uWS.us_socket_local_port(token);
}

/** Sends prelude then the request on a plain connection; resolves with the body, or null when it was closed unanswered. */
function askPlain(port, prelude) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat([prelude, Buffer.from(REQUEST)])));
    let answer = '';
    socket.on('data', (chunk) => { answer += chunk; });
    socket.on('close', () => resolve(answer ? answer.slice(answer.indexOf('\r\n\r\n') + 4) : null));
    socket.on('error', (error) => (error.code === 'ECONNRESET' ? resolve(null) : reject(error)));
  });
}

test('an optional header, version 2 or 1, names the client; the peer stays; none names nobody', async (t) => {
  const port = listenWith(t, uWS.App());
  assert.equal(await askPlain(port, V2), '203.0.113.7|51234|4|127.0.0.1');
  assert.equal(await askPlain(port, V1), '2001:0db8:0000:0000:0000:0000:0000:0007|5000|16|127.0.0.1');
  assert.equal(await askPlain(port, Buffer.alloc(0)), '|0|0|127.0.0.1');
});

test('on an SSLApp the header comes before the TLS handshake', async (t) => {
  const { localhost } = certificates();
  const port = listenWith(t, uWS.SSLApp({ key_file_name: localhost.key, cert_file_name: localhost.cert }));
  const body = await new Promise((resolve, reject) => {
    const raw = net.connect(port, '127.0.0.1', () => {
      raw.write(V2);
      const secure = tls.connect({ socket: raw, rejectUnauthorized: false }, () => secure.write(REQUEST));
      let answer = '';
      secure.on('data', (chunk) => { answer += chunk; });
      secure.on('end', () => resolve(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
      secure.on('error', reject);
    });
  });
  assert.equal(body, '203.0.113.7|51234|4|127.0.0.1');
});

test('a WebSocket keeps the address its connection\'s header named', async (t) => {
  const app = uWS.App().ws('/*', {
    open: (ws) => ws.send(`${text(ws.getProxiedRemoteAddressAsText())}|${ws.getProxiedRemotePort()}|` +
                          `${ws.getProxiedRemoteAddress().byteLength}`),
  });
  const port = listenWith(t, app);
  const client = new WebSocket(`ws://127.0.0.1:${port}/`, {
    createConnection: () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.write(V2);
      return socket;
    },
  });
  t.after(() => client.terminate());
  const message = await new Promise((resolve, reject) => {
    client.once('message', (data) => resolve(data.toString()));
    client.once('error', reject);
  });
  assert.equal(message, '203.0.113.7|51234|4');
});

test('proxy_protocol required and off; proxy_trusted_sources', async (t) => {
  const required = listenWith(t, uWS.App({ proxy_protocol: 'required' }));
  assert.equal(await askPlain(required, Buffer.alloc(0)), null);
  assert.equal(await askPlain(required, V2), '203.0.113.7|51234|4|127.0.0.1');
  const off = listenWith(t, uWS.App({ proxy_protocol: 'off' }));
  assert.match(await new Promise((resolve) => {
    const socket = net.connect(off, '127.0.0.1', () => socket.write(Buffer.concat([V1, Buffer.from(REQUEST)])));
    let answer = '';
    socket.on('data', (chunk) => { answer += chunk; });
    socket.on('close', () => resolve(answer));
  }), /^HTTP\/1\.1 400 /);
  const elsewhere = listenWith(t, uWS.App({ proxy_trusted_sources: ['10.0.0.0/8'] }));
  assert.equal(await askPlain(elsewhere, V2), null);
  assert.equal(await askPlain(elsewhere, Buffer.alloc(0)), '|0|0|127.0.0.1');
  const local = listenWith(t, uWS.App({ proxy_trusted_sources: ['127.0.0.1', '::1'] }));
  assert.equal(await askPlain(local, V2), '203.0.113.7|51234|4|127.0.0.1');
});

test('the options are checked: TypeError for a wrong type, RangeError for a wrong value', () => {
  assert.throws(() => uWS.App({ proxy_protocol: true }), { name: 'TypeError', message: /App: options\.proxy_protocol/ });
  assert.throws(() => uWS.App({ proxy_protocol: 'sometimes' }),
                { name: 'RangeError', message: /'optional', 'required' or 'off'/ });
  assert.throws(() => uWS.App({ proxy_trusted_sources: '10.0.0.0/8' }),
                { name: 'TypeError', message: /proxy_trusted_sources must be an array of strings/ });
  assert.throws(() => uWS.App({ proxy_trusted_sources: [10] }), TypeError);
  assert.throws(() => uWS.App({ proxy_trusted_sources: ['10.1.0.0/8'] }),
                { name: 'RangeError', message: /App: options\.proxy_trusted_sources: "10\.1\.0\.0\/8" is not an address/ });
  const { localhost } = certificates();
  assert.throws(() => uWS.SSLApp({ key_file_name: localhost.key, cert_file_name: localhost.cert,
                                   proxy_trusted_sources: ['nope'] }), { name: 'RangeError', message: /^SSLApp: / });
  uWS.App({ proxy_protocol: 'optional', proxy_trusted_sources: [] }).close();
});
