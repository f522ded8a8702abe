'use strict';
// The check made before anything is measured: one request of the scenario to every copy, whose answers must all
// have the same status, body and the headers the scenario names (compareHeaders: a name, or { name, view } to
// compare a part of the value, HEADER_VIEWS). The body is compared as the scenario's compareBody says (BODY_VIEWS):
// its bytes, or what they decode to. A server that answers differently would make the comparison meaningless, so
// the run stops and shows the difference.
//
// HTTP requests are sent with node:http (node:https for a TLS scenario, accepting the self-signed certificate the
// runner made) on a fresh connection; HTTP/2 scenarios' (request.mode 'h2') with node:http2, over TLS by ALPN or
// with prior knowledge, as h2load will. For ws/echo-* scenarios the check is one echo
// through lwload (`-c 1 -n 1`), which compares the echo with the message byte for byte; for ws/fanout, one window
// of messages to a few subscribers (`-c 4 -n 32`: 8 messages, each received whole and in order by all four).
const fs = require('node:fs');
const http = require('node:http');
const http2 = require('node:http2');
const https = require('node:https');
const zlib = require('node:zlib');
const { loadArgs, runLoad, errorCount } = require('./load');

const CHECK_TIMEOUT_MS = 10000;
// The lwload run that checks a WebSocket scenario, per mode: connections, and the messages (deliveries) expected.
const WS_CHECKS = {
  ws: { connections: 1, requests: 1, what: 'echo one message' },
  fanout: { connections: 4, requests: 32, what: 'deliver 8 messages to each of 4 subscribers' },
};
// How much of a differing body the message shows.
const BODY_EXCERPT_BYTES = 200;
// The part of a header's value a scenario may compare instead of the whole (compareHeaders: { name, view }):
// 'media-type' is Content-Type without its parameters, lowercased ("text/plain; charset=utf-8" -> "text/plain").
const HEADER_VIEWS = {
  'media-type': (value) => value.split(';')[0].trim().toLowerCase(),
};

// The decoders of the Content-Encodings a server may answer with, by token; zstd where this Node has it (22.15).
const DECODERS = {
  gzip: zlib.gunzipSync,
  'x-gzip': zlib.gunzipSync,
  deflate: zlib.inflateSync,
  br: zlib.brotliDecompressSync,
  ...(zlib.zstdDecompressSync ? { zstd: zlib.zstdDecompressSync } : {}),
};

// An answer's body with its Content-Encoding undone. A coding the check cannot decode, or a body that does not
// decode, gives a text saying so, which differs from every decodable answer's and is shown with the difference.
function decodedBody(answer) {
  const coding = (answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return answer.body;
  const decode = DECODERS[coding];
  if (!decode) return Buffer.from(`(a body in Content-Encoding ${coding}, which the check cannot decode)`);
  try {
    return decode(answer.body);
  } catch (error) {
    return Buffer.from(`(a body that does not decode as ${coding}: ${error.message})`);
  }
}

// The views of a body a scenario may compare (compareBody): 'bytes', as received; 'decoded', with its
// Content-Encoding undone, for answers coded per request, whose bytes each server's zlib (and level) makes its own
// way: what must agree is the content, and Content-Encoding, when the scenario names it, that it was coded.
const BODY_VIEWS = {
  bytes: (answer) => answer.body,
  decoded: decodedBody,
};

// What answer's body is for scenario's comparison (compareBody, 'bytes' when it has none).
function bodyValue(scenario, answer) {
  const name = scenario.compareBody ?? 'bytes';
  const view = BODY_VIEWS[name];
  if (!view) throw new Error(`no body view called ${name}`);
  return view(answer);
}

// A compareHeaders entry as { name, view } (a plain name compares the whole value).
const headerRule = (entry) => (typeof entry === 'string' ? { name: entry, view: null } : entry);

// What answer's header gives for the rule, as compared: the value or its view; undefined when it is absent.
function headerValue(answer, rule) {
  const value = answer.headers[rule.name];
  if (value === undefined || rule.view === null) return value;
  const view = HEADER_VIEWS[rule.view];
  if (!view) throw new Error(`no header view called ${rule.view}`);
  return view(value);
}

// Resolves to { status, headers, body } for one HTTP/2 request of scenario to 127.0.0.1:port, on a session of its
// own. A body goes with POST, as h2load sends it.
function requestOnceOverHttp2(scenario, port) {
  const { path, headers, bodyFile, tls } = scenario.request;
  const body = bodyFile ? fs.readFileSync(bodyFile) : null;
  return new Promise((resolve, reject) => {
    const session = http2.connect(`${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
                                  tls ? { rejectUnauthorized: false } : {});
    const fail = (error) => { session.destroy(); reject(error); };
    session.on('error', fail);
    session.setTimeout(CHECK_TIMEOUT_MS, () => fail(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)));
    const lowerCased = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    const stream = session.request({ ':method': body ? 'POST' : 'GET', ':path': path, ...lowerCased });
    const chunks = [];
    let status = 0;
    let responseHeaders = {};
    stream.on('response', (received) => {
      status = received[':status'];
      responseHeaders = Object.fromEntries(Object.entries(received).filter(([name]) => !name.startsWith(':')));
    });
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      session.close();
      resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks) });
    });
    stream.on('error', fail);
    stream.end(body ?? undefined);
  });
}

// Resolves to { status, headers, body } for one request of scenario to 127.0.0.1:port.
function requestOnce(scenario, port) {
  if (scenario.request.mode === 'h2') return requestOnceOverHttp2(scenario, port);
  const { method, path, headers, bodyFile, tls } = scenario.request;
  const body = bodyFile ? fs.readFileSync(bodyFile) : null;
  return new Promise((resolve, reject) => {
    const request = (tls ? https : http).request(
      { host: '127.0.0.1', port, method, path, agent: false, timeout: CHECK_TIMEOUT_MS,
        headers: body ? { ...headers, 'Content-Length': body.length } : headers,
        ...(tls ? { rejectUnauthorized: false } : {}) },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }));
        response.on('error', reject);
      });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

// The part of an answer that must agree, as text.
function essence(scenario, answer) {
  const lines = [`status ${answer.status}`];
  for (const rule of scenario.compareHeaders.map(headerRule)) {
    const label = rule.view === null ? rule.name : `${rule.name} (${rule.view})`;
    lines.push(`${label}: ${headerValue(answer, rule) ?? '(absent)'}`);
  }
  const value = bodyValue(scenario, answer);
  const body = value.length > BODY_EXCERPT_BYTES
    ? `${value.subarray(0, BODY_EXCERPT_BYTES).toString()}... (${value.length} bytes)`
    : value.toString();
  const view = value === answer.body ? '' : ` (${scenario.compareBody}, from ${answer.body.length} bytes)`;
  lines.push(`body${view} ${JSON.stringify(body)}`);
  return lines;
}

// answers: [{ copy, answer }]. Returns null when all agree, else a message listing what each copy answered.
function compareAnswers(scenario, answers) {
  const [first, ...others] = answers;
  const same = (a, b) => a.status === b.status && bodyValue(scenario, a).equals(bodyValue(scenario, b)) &&
    scenario.compareHeaders.map(headerRule).every((rule) => headerValue(a, rule) === headerValue(b, rule));
  if (others.every(({ answer }) => same(first.answer, answer))) return null;
  const listing = answers.map(({ copy, answer }) =>
    `  ${copy}:\n${essence(scenario, answer).map((line) => `    ${line}`).join('\n')}`);
  return `${scenario.name}: the servers answer differently, so nothing was measured:\n${listing.join('\n')}`;
}

// copies: [{ copy, port, splitPort, load }]. Resolves when all agree; rejects with the difference otherwise.
async function checkAnswers(scenario, copies, { lwload }) {
  const wsCheck = WS_CHECKS[scenario.request.mode];
  if (wsCheck) {
    const { connections, requests, what } = wsCheck;
    for (const { copy, port, splitPort, load } of copies) {
      const result = await runLoad({ lwload, args: loadArgs(scenario, port, { requests, connections, splitPort, load }),
        expectedSeconds: CHECK_TIMEOUT_MS / 1000 });
      if (result.requests !== requests || errorCount(result) !== 0) {
        throw new Error(`${scenario.name}: ${copy} did not ${what}: ${result.requests} counted, errors ` +
          JSON.stringify(result.errors));
      }
    }
    return;
  }
  const answers = [];
  for (const { copy, port } of copies) {
    try {
      answers.push({ copy, answer: await requestOnce(scenario, port) });
    } catch (error) {
      throw new Error(`${scenario.name}: ${copy} did not answer: ${error.message}`);
    }
  }
  const difference = compareAnswers(scenario, answers);
  if (difference !== null) throw new Error(difference);
}

module.exports = { WS_CHECKS, HEADER_VIEWS, BODY_VIEWS, requestOnce, compareAnswers, checkAnswers };
