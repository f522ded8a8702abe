'use strict';
// What every JavaScript scenario server shares, whatever it runs on (node:http, ws, or the uWebSockets.js API):
// the command line (--port N, 0 for any free port; --module SPEC for the uWebSockets.js-API servers; --key and
// --cert, PEM files, for the TLS ones; --docroot DIR for the static/* ones), the "listening on <port>" line the A/B
// runner waits for, and the answers,
// built by the same code for every implementation so that they cannot drift apart. The C++ twins are in ../cpp/.
const fs = require('node:fs');
const http = require('node:http');
const http2 = require('node:http2');
const https = require('node:https');

// The answer of http/headers is refused (400 "too long") past this many bytes, as in cpp/headers.cpp.
const MAX_HEADERS_ANSWER_BYTES = 512;
// Request bodies over this size get 413 and the connection is closed, as in cpp/json-post-1kb.cpp.
const MAX_BODY_BYTES = 64 * 1024;
// The http/cached page: CACHED_PAGE_LINES lines of 32 bytes, "NNN abcdefghijklmnopqrstuvwxyz.\n" (cpp/CachedPage.h).
const CACHED_PAGE_LINES = 32;
// ws/* servers refuse messages over this size.
const MAX_MESSAGE_BYTES = 64 * 1024;
// ws/fanout: the topic every subscriber joins, and the backpressure a subscriber may build before a message to it
// is dropped: far above what lwload's window of messages can queue, so that nothing is ever dropped (as in
// cpp/fanout.cpp).
const FANOUT_TOPIC = 'fanout';
const FANOUT_MAX_BACKPRESSURE_BYTES = 1024 * 1024;

// The exit status of a server that cannot run here at all (a module that does not load, an API its module lacks,
// such as an SSLApp that throws): the A/B runner skips the scenario for that implementation instead of stopping.
const UNAVAILABLE_EXIT_STATUS = 3;

const HELLO_WORLD = 'Hello world!';
const INVALID_JSON = '{"error":"invalid json"}';

function usage(message) {
  process.stderr.write(`${message}\nusage: node ${process.argv[1]} [--port N] [--module SPEC] ` +
    '[--key KEY.pem --cert CERT.pem] [--docroot DIR] [--http2]\n');
  process.exit(2);
}

// Returns { port, module, key, cert, docroot, http2 } from process.argv (key, cert and docroot: the paths, or null;
// http2: whether --http2 was given, for the h2/* and h2c/* scenarios).
function parseArgs(argv = process.argv.slice(2)) {
  const args = { port: 0, module: null, key: null, cert: null, docroot: null, http2: false };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--http2') {
      args.http2 = true;
    } else if (argv[i] === '--port' && value !== undefined) {
      args.port = Number(value);
      if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) usage(`bad port: ${value}`);
      i++;
    } else if (argv[i] === '--module' && value !== undefined) {
      args.module = value;
      i++;
    } else if ((argv[i] === '--key' || argv[i] === '--cert' || argv[i] === '--docroot') && value !== undefined) {
      args[argv[i].slice(2)] = value;
      i++;
    } else {
      usage(`unknown argument: ${argv[i]}`);
    }
  }
  return args;
}

// Returns { port, module, key, cert, docroot } for a TLS server, which needs both files.
function parseTlsArgs(argv = process.argv.slice(2)) {
  const args = parseArgs(argv);
  if (args.key === null || args.cert === null) usage('--key and --cert are required');
  return args;
}

// The server of a node:http scenario server, answering with handler: node:http, or node:https given --key and
// --cert; with --http2, node:http2's compatibility API (the `(req, res)` handlers of node:http, unchanged) with
// prior knowledge, or by ALPN given --key and --cert.
function createNodeServer(args, handler) {
  const tls = args.key !== null && args.cert !== null
    ? { key: fs.readFileSync(args.key), cert: fs.readFileSync(args.cert) }
    : null;
  if (args.http2) return tls ? http2.createSecureServer(tls, handler) : http2.createServer(handler);
  return tls ? https.createServer(tls, handler) : http.createServer(handler);
}

function announce(port) {
  process.stdout.write(`listening on ${port}\n`);
}

function failToListen(port) {
  process.stderr.write(`failed to listen on port ${port}\n`);
  process.exit(1);
}

function cachedPage() {
  let page = '';
  for (let line = 0; line < CACHED_PAGE_LINES; line++) {
    page += `${String(line).padStart(3, '0')} abcdefghijklmnopqrstuvwxyz.\n`;
  }
  return Buffer.from(page);
}

// The body of http/headers, or null when it would be longer than MAX_HEADERS_ANSWER_BYTES. Absent values
// (null or undefined) are empty.
function headersAnswer(user, lang, accept, agent) {
  const text = `user=${user ?? ''} lang=${lang ?? ''} accept=${accept ?? ''} agent=${agent ?? ''}`;
  return Buffer.byteLength(text) > MAX_HEADERS_ANSWER_BYTES ? null : text;
}

// The answer of http/json-post-1kb to a body (a Buffer): { status, body }.
function jsonAnswer(bytes) {
  let value;
  try {
    value = JSON.parse(bytes.toString());
  } catch {
    return { status: '400 Bad Request', body: INVALID_JSON };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { status: '400 Bad Request', body: INVALID_JSON };
  }
  const id = Number.isSafeInteger(value.id) ? value.id : null;
  const answer = { id, keys: Object.keys(value).length, bytes: bytes.length };
  return { status: '200 OK', body: JSON.stringify(answer) };
}

module.exports = {
  createNodeServer,
  MAX_BODY_BYTES,
  MAX_MESSAGE_BYTES,
  FANOUT_TOPIC,
  FANOUT_MAX_BACKPRESSURE_BYTES,
  HELLO_WORLD,
  UNAVAILABLE_EXIT_STATUS,
  parseArgs,
  parseTlsArgs,
  announce,
  failToListen,
  cachedPage,
  headersAnswer,
  jsonAnswer,
};
