'use strict';
// The soak test's server on the Node addon (see docs/soak.md); tests/soak/soak_server.cpp is its native twin.
//
//   GET  /hello           200 "Hello world!"
//   POST /echo            200, the body echoed back, with x-sha256: the SHA-256 (hex) of the body as received.
//                         Bodies up to 1 MiB; larger ones get 413 and a close.
//   GET  /stream?size=N   200, N bytes (default 8 MiB) sent with tryEnd/onWritable; byte i is (i * 31 + 7) & 0xff
//   GET  /deferred        200 "deferred", 20 to 50 ms later
//
// Listens on 127.0.0.1, port 0 (or $PORT), and prints "listening on <port>" once ready.

const crypto = require('node:crypto');
const uWS = require('../../addon/lib/index.js');
const { patternPiece } = require('./lib/bodyPattern.js');

const MAX_ECHO_BYTES = 1024 * 1024;
const DEFAULT_STREAM_BYTES = 8 * 1024 * 1024;
const MAX_STREAM_BYTES = 1024 * 1024 * 1024;
const MIN_DEFER_MS = 20;
const MAX_DEFER_MS = 50;

function answerEcho(res, req) {
  if (Number(req.getHeader('content-length')) > MAX_ECHO_BYTES) {
    res.writeStatus('413 Payload Too Large').end('', true);
    return;
  }
  const pieces = [];
  let size = 0;
  let refused = false;
  res.onAborted(() => { refused = true; });
  res.onData((chunk, isLast) => {
    if (refused) return;
    size += chunk.byteLength;
    if (size > MAX_ECHO_BYTES) {
      // A chunked body has no Content-Length to refuse up front.
      refused = true;
      res.writeStatus('413 Payload Too Large').end('', true);
      return;
    }
    // The chunk is only valid during this call: copy it.
    pieces.push(Buffer.from(new Uint8Array(chunk)));
    if (!isLast) return;
    const body = Buffer.concat(pieces, size);
    res.cork(() => {
      res.writeHeader('x-sha256', crypto.createHash('sha256').update(body).digest('hex')).end(body);
    });
  });
}

function answerStream(res, req) {
  const sizeText = req.getQuery('size');
  const size = sizeText === undefined ? DEFAULT_STREAM_BYTES : Number(sizeText);
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_STREAM_BYTES || sizeText === '') {
    res.writeStatus('400 Bad Request').end('size must be a number of bytes up to 1 GiB');
    return;
  }
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  res.writeHeader('content-type', 'application/octet-stream');
  // Sends until the socket pushes back; returns whether it took everything offered.
  const pump = () => {
    while (!aborted) {
      const offset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(patternPiece(offset, size - offset), size);
      if (done) return true;
      if (!ok) return false;
    }
    return true;
  };
  res.onWritable(() => pump());
  pump();
}

function answerLater(res) {
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  setTimeout(() => {
    if (!aborted) res.cork(() => res.end('deferred'));
  }, MIN_DEFER_MS + Math.floor(Math.random() * (MAX_DEFER_MS - MIN_DEFER_MS + 1)));
}

uWS.App()
  .get('/hello', (res) => res.end('Hello world!'))
  .post('/echo', answerEcho)
  .get('/stream', answerStream)
  .get('/deferred', answerLater)
  .listen('127.0.0.1', Number(process.env.PORT ?? 0), (listenSocket) => {
    if (!listenSocket) {
      console.error('failed to listen');
      process.exit(1);
    }
    console.log(`listening on ${uWS.us_socket_local_port(listenSocket)}`);
  });
