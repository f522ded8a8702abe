'use strict';
// WebSocket test helpers: a `ws` client that queues its messages, and a raw client that speaks frames by hand (for
// what a polite client never sends).

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const net = require('node:net');
const WebSocket = require('ws');

/**
 * Opens a `ws` client on port and resolves once it is open; it is closed when the test ends. Messages are queued
 * from the start (one sent by the open handler can arrive with the 101, before `open` has resolved).
 */
function connectClient(t, port, options = {}, urlPath = '/') {
  const client = new WebSocket(`ws://127.0.0.1:${port}${urlPath}`, options.protocols, options);
  t.after(() => client.terminate());
  client.queued = [];
  client.waiting = [];
  client.on('message', (data, isBinary) => {
    const message = { data, isBinary };
    if (client.waiting.length > 0) client.waiting.shift()(message);
    else client.queued.push(message);
  });
  return new Promise((resolve, reject) => {
    client.once('open', () => resolve(client));
    client.once('error', reject);
  });
}

/** Resolves with the next message the client receives, as { data, isBinary }. */
function nextMessage(client) {
  if (client.queued.length > 0) return Promise.resolve(client.queued.shift());
  return new Promise((resolve) => client.waiting.push(resolve));
}

/** Resolves with { code, reason } when the client's connection closes. */
function closed(client) {
  return new Promise((resolve) => client.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** A promise with its resolve function, for values handlers produce. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

/** A raw TCP client that completed the handshake; sends masked frames and collects what the server sends. */
async function rawClient(t, port, extraHeaders = '') {
  const socket = net.connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const key = crypto.randomBytes(16).toString('base64');
  socket.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
               `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extraHeaders}\r\n`);
  let received = Buffer.alloc(0);
  let ended = false;
  const waiters = [];
  const wake = () => { for (const waiter of waiters.splice(0)) waiter(); };
  socket.on('data', (chunk) => { received = Buffer.concat([received, chunk]); wake(); });
  socket.on('close', () => { ended = true; wake(); });
  socket.on('error', () => {});
  const waitFor = async (predicate, what) => {
    const deadline = Date.now() + 5000;
    while (!predicate()) {
      if (ended || Date.now() > deadline) throw new Error(`raw client: ${what} did not come (got ${received.toString('hex')})`);
      await new Promise((resolve) => { waiters.push(resolve); setTimeout(resolve, 50); });
    }
  };
  await waitFor(() => received.includes('\r\n\r\n'), 'the 101');
  const head = received.subarray(0, received.indexOf('\r\n\r\n') + 4).toString('latin1');
  assert.match(head, /^HTTP\/1\.1 101 /);
  received = received.subarray(head.length);
  return {
    socket,
    head,
    /** Writes one masked frame: byte0 is FIN|RSV|opcode. */
    frame(byte0, payload, { mask = true } = {}) {
      payload = Buffer.from(payload);
      const length = payload.length;
      const header = [byte0];
      if (length < 126) header.push((mask ? 0x80 : 0) | length);
      else if (length < 65536) header.push((mask ? 0x80 : 0) | 126, length >> 8, length & 0xff);
      else throw new Error('test frames are short');
      const maskKey = crypto.randomBytes(4);
      const body = Buffer.from(payload);
      if (mask) for (let i = 0; i < body.length; ++i) body[i] ^= maskKey[i % 4];
      socket.write(Buffer.concat([Buffer.from(header), mask ? maskKey : Buffer.alloc(0), body]));
    },
    /** Resolves with the server's next frame: { opcode, fin, rsv1, payload }. */
    async readFrame() {
      const complete = () => {
        if (received.length < 2) return false;
        let length = received[1] & 0x7f;
        let offset = 2;
        if (length === 126) { if (received.length < 4) return false; length = received.readUInt16BE(2); offset = 4; }
        if (length === 127) { if (received.length < 10) return false; length = Number(received.readBigUInt64BE(2)); offset = 10; }
        return received.length >= offset + length;
      };
      await waitFor(complete, 'a frame');
      let length = received[1] & 0x7f;
      let offset = 2;
      if (length === 126) { length = received.readUInt16BE(2); offset = 4; }
      if (length === 127) { length = Number(received.readBigUInt64BE(2)); offset = 10; }
      const frame = { opcode: received[0] & 0x0f, fin: (received[0] & 0x80) !== 0, rsv1: (received[0] & 0x40) !== 0,
                      payload: received.subarray(offset, offset + length) };
      received = received.subarray(offset + length);
      return frame;
    },
    async waitClosed() { await waitFor(() => ended, 'the close'); },
  };
}

module.exports = { connectClient, nextMessage, closed, deferred, rawClient };
