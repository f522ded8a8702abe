'use strict';
// The scenario table of the A/B runner (bench/ab/): for each scenario, the load lwload puts on it and, per
// implementation, the server that answers it. Every server answers the scenario's request identically (status,
// body and the headers named in `compareHeaders`); the runner checks that before it measures anything. The body is
// compared as sent, or, where `compareBody` is 'decoded', after undoing its Content-Encoding: an answer coded per
// request is the same JSON from every server in bytes that each server's zlib (and level) makes its own way.
//
// Server commands are argv arrays with placeholders the runner fills per arm:
//   {node}   the Node.js executable running the runner
//   {root}   the arm's checkout (its package root, for the loopwire addon)
//   {build}  the arm's CMake build directory (C++ servers are in {build}/bench/scenarios/)
//   {uws}    the folder of the uwebsockets package the runner installs into its cache (bench/ab/uws.js)
//   {socketio}  the folder of the socket.io package it installs there, beside its Redis adapter (bench/ab/socketio.js)
//   {tlsKey}, {tlsCert}  the key and self-signed certificate (PEM files) the runner makes with the openssl command
//            for each run that has a TLS scenario (bench/ab/tls.js); the same pair for every server
//   {docroot}  the document root the runner makes for each run that has a static/* scenario (bench/ab/docroot.js),
//            holding the files the scenarios' `docroot` name ({ name: { kind, size, gzip } }); the same folder for
//            every server
//   {ultimateExpress}, {fastify}  the folders of the static-file stacks it installs into its cache (bench/ab/stacks.js)
//   {expressCompression}  the folder of ultimate-express with the compression middleware beside it, installed there
//            too, for the compress/* scenarios
// and every server gets `--port 0` appended and prints "listening on <port>". `requires`, when present, is a
// module that must load for the arm to run (`{root}` for the addon, `ws`, `{uws}`); a server whose
// requirement is missing is skipped with a message, never an error. `load`, when present, is what that server
// changes in the scenario's request for lwload (socket.io's path and its protocol, `socketIo`).
//
// A server from the system (nginx, h2o) names its executable in `program`, looked up on PATH (and in /usr/sbin);
// where it is not installed the arm is skipped. Such servers read a configuration file and cannot print a port:
// `config` is the template of that file (bench/scenarios/configs.js) and `{config}` its path in the command; the
// runner picks a free port for each start, fills the template with it ({port}, {configDir}, and the placeholders
// above) into a folder of its own, and waits for the port to accept connections.
//
// `request.tls` makes lwload load the scenario over TLS (https://, wss://) on keep-alive connections.
//
// `enabled: false` keeps a row defined but out of every run until what it needs exists (`disabled` says what).
// `unit` is what lwload counts and the report divides CPU time by: 'request' (HTTP), 'handshake' (an HTTP request
// on a connection of its own, with its TLS handshake), 'MiB' (an HTTP request whose answer is a file of exactly one
// MiB: per request is per MiB of body), 'message' (an echo) or 'delivery' (a message received by one subscriber). `joinSeconds` is how long lwload may take to open its
// connections before its measured time begins (lwload fanout starts measuring once every subscriber has
// joined): the runner allows it on top of the duration before calling a run stalled. `callgrindSecondsPerRequest`
// is how long a request may take under callgrind (--instructions) when it is far more than the runner's default
// (bench/ab/instructions.js): a MiB read and encrypted under callgrind takes some 0.2 s.
//
// File descriptors: ws/fanout holds 1,001 connections. lwload and cpp/fanout.cpp raise their soft RLIMIT_NOFILE
// themselves; Node raises its own soft limit to the hard limit at startup, so the JavaScript servers need
// nothing (a hard limit under about 1,100 would, and is reported by the server failing to accept).

const path = require('node:path');
const { nginxConfig, h2oConfig } = require('./configs');

// Connections lwload keeps open, unless a scenario says otherwise.
const DEFAULT_CONNECTIONS = 100;
// Requests written back to back per connection, unless a scenario says otherwise.
const DEFAULT_PIPELINE = 1;

// The implementations. buildTargets: the CMake targets an arm running it needs built (cached per commit).
// followsNodeOption: the arm runs on the Node that --node names (the runner's Node otherwise; uws always stays on
// it). prepare: a command run in the arm's checkout before its servers start (the addon's own build), and the
// folders it writes, cached per commit; in the working tree it runs every time, as an incremental build, so that an edited
// source is measured as edited. program: the system executable the implementation is (its servers are skipped where
// it is not installed), and versionArgs the arguments that make it print its version, for the report.
const IMPLEMENTATIONS = {
  'loopwire-cpp': { label: 'loopwire (C++)', buildTargets: ['bench_scenarios'] },
  'loopwire-js': {
    label: 'loopwire (JS addon)',
    buildTargets: [],
    followsNodeOption: true,
    prepare: { command: ['{node}', '{root}/scripts/build-addon.js', '--quiet'],
      outputs: ['build-addon'] },
  },
  'node-http': { label: 'node:http + ws', buildTargets: [], followsNodeOption: true },
  uws: { label: 'uWebSockets.js (npm uwebsockets)', buildTargets: [] },
  socketio: { label: 'socket.io + @socket.io/redis-adapter (npm)', buildTargets: [], followsNodeOption: true },
  // The static/* scenarios' competitors: the C servers from Debian (apt-get install nginx-light h2o;
  // scripts/deps.sh --full), and the JavaScript stacks from npm, installed into the runner's cache.
  // express-static stays on the runner's Node, like uws: uWebSockets.js's binaries load here only on Node 20.
  nginx: { label: 'nginx (Debian)', buildTargets: [], program: 'nginx', versionArgs: ['-v'] },
  h2o: { label: 'h2o (Debian)', buildTargets: [], program: 'h2o', versionArgs: ['--version'] },
  'express-static': { label: 'express.static on ultimate-express over uWebSockets.js (npm)', buildTargets: [] },
  'fastify-static': { label: '@fastify/static on fastify over node:http (npm)', buildTargets: [],
    followsNodeOption: true },
  // The compress/* scenarios' competitor: what an Express application codes its answers with. On the runner's Node,
  // like express-static.
  'express-compression': { label: 'compression middleware on ultimate-express over uWebSockets.js (npm)',
    buildTargets: [] },
  // The h2/* and h2c/* scenarios' JavaScript competitor: node:http2's compatibility API, the node:http handlers
  // unchanged, as an application moving to HTTP/2 on Node writes it.
  'node-http2': { label: 'node:http2 (compatibility API)', buildTargets: [], followsNodeOption: true },
};

const cppServer = (name) => ({ command: [`{build}/bench/scenarios/${name}`] });
const nodeServer = (name, requires) => ({
  command: ['{node}', `{root}/bench/scenarios/js/node/${name}.js`],
  ...(requires ? { requires } : {}),
});
const uwsApiServer = (name, module) => ({
  command: ['{node}', `{root}/bench/scenarios/js/uws/${name}.js`, '--module', module],
  requires: module,
});

// The four servers of an HTTP scenario whose files are all called `name`.
const httpServers = (name) => ({
  'loopwire-cpp': cppServer(name),
  'loopwire-js': uwsApiServer(name, '{root}'),
  'node-http': nodeServer(name),
  uws: uwsApiServer(name, '{uws}'),
});

// The four servers of an HTTP scenario over TLS: the files called `https-${name}`, given the run's key and
// certificate. The loopwire-js server exits with UNAVAILABLE_EXIT_STATUS (skipped) while the addon's SSLApp
// throws.
const TLS_ARGS = ['--key', '{tlsKey}', '--cert', '{tlsCert}'];
// What tells a static/* JavaScript server to serve precompressed siblings (bench/scenarios/js/static/args.js).
const PRECOMPRESSED_ARG = '--precompressed';
const withTls = (server) => ({ ...server, command: [...server.command, ...TLS_ARGS] });
const httpsServers = (name) => Object.fromEntries(Object.entries(httpServers(`https-${name}`))
  .map(([impl, server]) => [impl, withTls(server)]));

// The files of the static/* scenarios' document root: one cached by every server that caches (loopwire keeps
// files up to 256 KiB in memory), one streamed (sendfile(2) where the server uses it, on plain TCP). Random
// printable bytes, which no server's answer depends on compressing.
const printableFile = (size) => ({ kind: 'printable', size });
const STATIC_FILES = { '1kb.txt': printableFile(1024), '1mb.txt': printableFile(1024 * 1024) };
// The file of static/gzip-50kb: 50 KiB of compressible text and its gzip sibling (50kb.txt.gz, made at level 9),
// small enough for every cache here (loopwire keeps it and the variant in memory).
const GZIP_FILES = { '50kb.txt': { kind: 'text', size: 50 * 1024, gzip: true } };
// How long a 1 MiB response may take under callgrind: some 0.2 s over TLS (nginx, loopwire), more in JavaScript.
const MIB_CALLGRIND_SECONDS = 1;

// The six servers of a static/* scenario, each serving {docroot} at "/" with its defaults (bench/scenarios/configs.js
// for nginx and h2o); tls: over TLS with the run's key and certificate. precompressed: each serves a file's .gz
// sibling to a request that accepts gzip, the way it has for that (loopwire by default; nginx's gzip_static, h2o's
// file.send-compressed, @fastify/static's preCompressed, given --precompressed); express.static has no such
// option, so that scenario has no express-static server and the runner skips it ("has no express-static server").
const staticScript = (name, module, extraArgs) => ({
  command: ['{node}', `{root}/bench/scenarios/js/static/${name}.js`, '--module', module, '--docroot', '{docroot}',
    ...extraArgs],
  requires: module,
});
const staticServers = ({ tls, precompressed = false }) => {
  const tlsArgs = tls ? TLS_ARGS : [];
  return {
    'loopwire-cpp': { command: ['{build}/bench/scenarios/static', '--docroot', '{docroot}', ...tlsArgs] },
    'loopwire-js': staticScript('loopwire', '{root}', tlsArgs),
    nginx: { program: 'nginx', command: ['nginx', '-c', '{config}', '-e', 'stderr'],
      config: { name: 'nginx.conf', template: nginxConfig({ tls, precompressed }) } },
    h2o: { program: 'h2o', command: ['h2o', '-c', '{config}'],
      config: { name: 'h2o.conf', template: h2oConfig({ tls, precompressed }) } },
    ...(precompressed ? {} : { 'express-static': staticScript('express-static', '{ultimateExpress}', tlsArgs) }),
    'fastify-static': staticScript('fastify-static', '{fastify}',
      [...tlsArgs, ...(precompressed ? [PRECOMPRESSED_ARG] : [])]),
  };
};
// What every static/* server answers alike: the length (no chunked coding anywhere), the media type (servers
// differ in the charset parameter: loopwire, express.static and @fastify/static send "text/plain; charset=utf-8",
// nginx and h2o "text/plain", so only the part before ";" is compared) and Accept-Ranges. ETag and Last-Modified
// are left out: every server spells them its own way (an inode, a time, a size, in hexadecimal or not; weak or
// strong).
const STATIC_COMPARE_HEADERS = ['content-length', { name: 'content-type', view: 'media-type' }, 'accept-ranges'];
// static/gzip-50kb's: Content-Encoding too, so that a server answering with the plain file (one that ignores the
// sibling, or a request that lost its Accept-Encoding) stops the run; Content-Length is then the .gz's. Not
// Accept-Ranges: nginx's gzip_static answer has none, the others' have "bytes". Not Vary either: @fastify/static's
// preCompressed sends none (loopwire, h2o, and nginx with gzip_vary send Accept-Encoding).
const GZIP_COMPARE_HEADERS = ['content-length', { name: 'content-type', view: 'media-type' }, 'content-encoding'];

// The document of the compress/* scenarios: 50 KiB of JSON, an array of the records static/gzip-50kb's text holds
// (bench/ab/docroot.js), which every server reads at start-up from the run's document root (--body) and answers to
// every request, coded anew each time, never cached: what coding a handler's answer on the fly costs.
const COMPRESS_FILES = { '50kb.json': { kind: 'json', size: 50 * 1024 } };
const COMPRESS_BODY_ARGS = ['--body', '{docroot}/50kb.json'];
// What sets the gzip level of a compress/* loopwire server (ResponseCompressionOptions' gzipLevel); without it the
// server keeps loopwire's default, 4 (docs/decisions/compression.md, "Levels").
const GZIP_LEVEL_ARG = '--gzip-level';
// The compression middleware's gzip level (zlib's default, which it keeps): the level the loopwire servers of
// compress/json-50kb-level6 are given, so that both sides make output of about the same size.
const MIDDLEWARE_GZIP_LEVEL = 6;
// How long a compress/* request may take under callgrind: 50 KiB gzipped is 3 to 6 million instructions, up to
// some 60 ms under callgrind (the middleware's, on a Node not yet warm).
const COMPRESS_CALLGRIND_SECONDS = 0.1;

// The three servers of a compress/* scenario, each answering GET /json with the document as application/json under a
// rule that codes every path ("/*"): loopwire's App::compress and app.compress, with gzipLevel when given, and the
// compression middleware on ultimate-express with its defaults (res.send of the same bytes).
const compressScript = (name, module, extraArgs) => ({
  command: ['{node}', `{root}/bench/scenarios/js/compress/${name}.js`, '--module', module, ...COMPRESS_BODY_ARGS,
    ...extraArgs],
  requires: module,
});
const compressServers = ({ gzipLevel = null } = {}) => {
  const levelArgs = gzipLevel === null ? [] : [GZIP_LEVEL_ARG, String(gzipLevel)];
  return {
    'loopwire-cpp': { command: ['{build}/bench/scenarios/compress', ...COMPRESS_BODY_ARGS, ...levelArgs] },
    'loopwire-js': compressScript('loopwire', '{root}', levelArgs),
    'express-compression': compressScript('express-compression', '{expressCompression}', []),
  };
};
// What every compress/* server answers alike: the media type (a server may add a charset), the coding, so that a
// server answering plain JSON stops the run, and Vary, which a cache needs to keep the coded answer apart. Not
// Content-Length: loopwire codes an end() whole and states the coded length, the middleware streams its output in
// chunks; and the lengths differ with the level anyway.
const COMPRESS_COMPARE_HEADERS = [{ name: 'content-type', view: 'media-type' }, 'content-encoding', 'vary'];

// The HTTP/2 scenarios: h2/* over TLS (h2 by ALPN), h2c/* in cleartext (prior knowledge), each loaded by h2load
// (bench/ab/h2load.js; lwload speaks no HTTP/2) with `streams` requests in flight on each of DEFAULT_CONNECTIONS
// connections. Their servers are the http/* ones given --http2 (and --key, --cert for h2/*), node:http2's
// compatibility API, and for the hello-* ones h2o and nginx serving HELLO_FILES' file, h2o's fastest path (its
// mruby handlers cost twice as much), with HTTP/2 on (bench/scenarios/configs.js).
const H2_STREAMS = 10;
const HELLO_FILES = { 'hello.txt': { kind: 'hello', size: 12 } };
const H2_ARG = '--http2';
const h2Servers = (name, { tls, file = false }) => {
  const tlsArgs = tls ? TLS_ARGS : [];
  const cppName = tls && name === 'hello-world' ? 'https-hello-world' : name;
  return {
    'loopwire-cpp': { command: [`{build}/bench/scenarios/${cppName}`, H2_ARG, ...tlsArgs] },
    'loopwire-js': { command: ['{node}', `{root}/bench/scenarios/js/uws/${name}.js`, '--module', '{root}', H2_ARG,
      ...tlsArgs], requires: '{root}' },
    'node-http2': { command: ['{node}', `{root}/bench/scenarios/js/node/${name}.js`, H2_ARG, ...tlsArgs] },
    ...(file ? {
      h2o: { program: 'h2o', command: ['h2o', '-c', '{config}'],
        config: { name: 'h2o.conf', template: h2oConfig({ tls }) } },
      nginx: { program: 'nginx', command: ['nginx', '-c', '{config}', '-e', 'stderr'],
        config: { name: 'nginx.conf', template: nginxConfig({ tls, http2: true }) } },
    } : {}),
  };
};
// The four HTTP/2 scenarios, over TLS (h2/*) or in cleartext (h2c/*).
const h2Scenarios = (tls) => {
  const prefix = tls ? 'h2' : 'h2c';
  const hello = { mode: 'h2', method: 'GET', path: '/hello.txt', tls };
  return [
    {
      // Hello world, ten streams at a time on each of 100 connections: what a browser loading a page's many
      // resources puts on a server, each read bringing several requests.
      name: `${prefix}/hello-world`,
      request: hello,
      streams: H2_STREAMS,
      docroot: HELLO_FILES,
      servers: h2Servers('hello-world', { tls, file: true }),
    },
    {
      // One stream at a time per connection: every request a read of its own, as HTTP/1.1 without pipelining.
      name: `${prefix}/hello-1stream`,
      request: hello,
      streams: 1,
      docroot: HELLO_FILES,
      servers: h2Servers('hello-world', { tls, file: true }),
    },
    {
      // http/headers: three request fields read, three written, through HPACK both ways.
      name: `${prefix}/headers`,
      request: { mode: 'h2', method: 'GET', path: '/headers?user=42&lang=en', tls,
        headers: { 'x-request-id': '7f3a9c1e', accept: 'application/json', 'user-agent': 'h2load/1' } },
      streams: H2_STREAMS,
      compareHeaders: ['x-request-id', 'content-type', 'cache-control'],
      servers: h2Servers('headers', { tls }),
    },
    {
      // http/json-post-1kb: a body in DATA frames, under flow control.
      name: `${prefix}/post-1kb`,
      request: { mode: 'h2', method: 'POST', path: '/json', tls, headers: { 'content-type': 'application/json' },
        bodyFile: path.join(__dirname, 'bodies', 'post-1kb.json') },
      streams: H2_STREAMS,
      compareHeaders: ['content-type'],
      servers: h2Servers('json-post-1kb', { tls }),
    },
  ];
};

// The connections of https/handshake-*, each making one handshake after another.
const HANDSHAKE_CONNECTIONS = 20;

// The subscribers of ws/fanout.
const FANOUT_SUBSCRIBERS = 1000;

// The echo servers of the ws/echo-* scenarios, and of wss/echo-20b (the files called https-echo, given the run's
// key and certificate).
const echoServers = (name = 'echo') => ({
  'loopwire-cpp': cppServer(name),
  'loopwire-js': uwsApiServer(name, '{root}'),
  'node-http': nodeServer(name, 'ws'),
  uws: uwsApiServer(name, '{uws}'),
});
const wssEchoServers = () => Object.fromEntries(Object.entries(echoServers('https-echo'))
  .map(([impl, server]) => [impl, withTls(server)]));

// The servers of ws/fanout: subscribers (role=sub in the query) join one topic; the publisher's messages go to it.
const fanoutServers = () => ({
  'loopwire-cpp': cppServer('fanout'),
  'loopwire-js': uwsApiServer('fanout', '{root}'),
  'node-http': nodeServer('fanout', 'ws'),
  uws: uwsApiServer('fanout', '{uws}'),
});

// cluster/*: how long lwload waits after its subscribers have joined before publishing (lwload --settle), so that
// both nodes' SUBSCRIBE has reached Redis (a message published before that never reaches a node: at most once).
const CLUSTER_SETTLE_MS = 250;
// cluster/fanout-history: the messages its topic keeps.
const CLUSTER_HISTORY_SIZE = 100;

// The servers of cluster/fanout: two nodes of the ws/fanout server sharing one Redis, started by the launcher.
const clusterServer = (node, module, extra = []) => ({
  command: ['{node}', '{root}/bench/scenarios/js/cluster/launcher.js', '--node', node, '--module', module, ...extra],
  requires: module,
});
// socket.io's cluster node: lwload speaks engine.io and socket.io to it on its own path, and each message travels
// as the text of a socket.io event (30 bytes on the wire for 20 of payload).
const socketIoClusterServer = () => ({
  ...clusterServer('socketio-node.js', '{socketio}'),
  load: { path: '/socket.io/?EIO=4&transport=websocket', socketIo: true },
});

const SCENARIOS = [
  {
    name: 'http/hello-world',
    request: { method: 'GET', path: '/' },
    servers: httpServers('hello-world'),
  },
  {
    name: 'http/headers',
    request: {
      method: 'GET',
      path: '/headers?user=42&lang=en',
      headers: { 'X-Request-Id': '7f3a9c1e', Accept: 'application/json', 'User-Agent': 'lwload/1' },
    },
    compareHeaders: ['x-request-id', 'content-type', 'cache-control'],
    servers: httpServers('headers'),
  },
  {
    name: 'http/json-post-1kb',
    request: {
      method: 'POST',
      path: '/json',
      headers: { 'Content-Type': 'application/json' },
      bodyFile: path.join(__dirname, 'bodies', 'post-1kb.json'),
    },
    compareHeaders: ['content-type'],
    servers: httpServers('json-post-1kb'),
  },
  {
    name: 'http/cached',
    request: { method: 'GET', path: '/cached' },
    compareHeaders: ['content-type'],
    servers: httpServers('cached'),
  },
  {
    // hello-world with 16 requests written back to back per connection: what a server costs per request when
    // one read brings many of them (the JavaScript boundary crossed once per read, not once per request).
    name: 'http/hello-pipelined',
    request: { method: 'GET', path: '/' },
    pipeline: 16,
    servers: httpServers('hello-world'),
  },
  {
    // hello-world over TLS (1.3, which lwload and every server here negotiate), on keep-alive connections: what
    // it measures is the cost of the records, decrypting each request and encrypting each response; each lwload
    // run makes one handshake per connection, at its start. The key and certificate are an EC P-256 pair the runner
    // makes for the run.
    name: 'https/hello-world',
    request: { method: 'GET', path: '/', tls: true },
    servers: httpsServers('hello-world'),
  },
  {
    // A full TLS handshake per request: each of 20 connections connects, handshakes without offering a session,
    // sends one GET, reads the answer and closes, and again at once (lwload --reconnect --tls-resume off). CPU per
    // request is CPU per full handshake (plus a small request).
    name: 'https/handshake-full',
    request: { method: 'GET', path: '/', tls: true, reconnect: true, tlsResume: false },
    connections: HANDSHAKE_CONNECTIONS,
    unit: 'handshake',
    servers: httpsServers('hello-world'),
  },
  {
    // The same, each connection offering the session (the TLS 1.3 ticket) its last handshake left: CPU per resumed
    // handshake.
    name: 'https/handshake-resumed',
    request: { method: 'GET', path: '/', tls: true, reconnect: true, tlsResume: true },
    connections: HANDSHAKE_CONNECTIONS,
    unit: 'handshake',
    servers: httpsServers('hello-world'),
  },
  {
    name: 'ws/echo-20b',
    request: { mode: 'ws', path: '/', messageBytes: 20 },
    unit: 'message',
    servers: echoServers(),
  },
  {
    // ws/echo-20b over TLS: each message is one record each way.
    name: 'wss/echo-20b',
    request: { mode: 'ws', path: '/', messageBytes: 20, tls: true },
    unit: 'message',
    servers: wssEchoServers(),
  },
  {
    name: 'ws/echo-4kb',
    request: { mode: 'ws', path: '/', messageBytes: 4096 },
    unit: 'message',
    servers: echoServers(),
  },
  {
    // One publisher, FANOUT_SUBSCRIBERS subscribers on one topic, messages of 20 bytes, at most `window` of them
    // not yet received by every subscriber (lwload fanout). The figure is deliveries per second and server CPU
    // per delivery: the cost of pub/sub's fan-out, one write per subscriber per batch of messages.
    name: 'ws/fanout',
    request: { mode: 'fanout', path: '/', messageBytes: 20, window: 8 },
    connections: FANOUT_SUBSCRIBERS,
    unit: 'delivery',
    joinSeconds: 1,
    servers: fanoutServers(),
  },
  {
    // ws/fanout across a cluster: two server processes and a redis-server, the publisher and half the subscribers
    // on the first node, the other half on the second (lwload fanout --split-url). Every message crosses Redis.
    // loopwire links the nodes with app.connectPubSub; uWebSockets.js with the glue its users write (two ioredis
    // connections per node, app.publish for what the subscriber receives); socket.io with its Redis adapter. The CPU per delivery is that of both
    // nodes and Redis together: the launcher runs them all in the server's process group.
    name: 'cluster/fanout',
    request: { mode: 'fanout', path: '/', messageBytes: 20, window: 8, split: true, settleMs: CLUSTER_SETTLE_MS },
    connections: FANOUT_SUBSCRIBERS,
    unit: 'delivery',
    joinSeconds: 2,
    servers: {
      'loopwire-js': clusterServer('loopwire-node.js', '{root}'),
      uws: clusterServer('uws-glue-node.js', '{uws}'),
      socketio: socketIoClusterServer(),
    },
  },
  {
    // cluster/fanout with 10 subscribers: each message reaches few sockets, so what it costs to cross the cluster
    // (the publish to Redis, Redis, the message back on each node) is most of a delivery's cost.
    name: 'cluster/fanout-10',
    request: { mode: 'fanout', path: '/', messageBytes: 20, window: 8, split: true, settleMs: CLUSTER_SETTLE_MS },
    connections: 10,
    unit: 'delivery',
    joinSeconds: 2,
    servers: {
      'loopwire-js': clusterServer('loopwire-node.js', '{root}'),
      uws: clusterServer('uws-glue-node.js', '{uws}'),
      socketio: socketIoClusterServer(),
    },
  },
  {
    // cluster/fanout on a topic with history (loopwire's alone): every publish is the history script's EVALSHA
    // (numbered, kept in a Redis Stream of 100, published stamped), every delivery comes back from Redis, the
    // publisher's node included, and lwload takes the stamp off each message and checks that offsets increase.
    name: 'cluster/fanout-history',
    request: { mode: 'fanout', path: '/', messageBytes: 20, window: 8, split: true, settleMs: CLUSTER_SETTLE_MS,
      stamped: true },
    connections: FANOUT_SUBSCRIBERS,
    unit: 'delivery',
    joinSeconds: 2,
    servers: {
      'loopwire-js': clusterServer('loopwire-node.js', '{root}', ['--history', String(CLUSTER_HISTORY_SIZE)]),
    },
  },
  {
    // A 1 KiB file from a folder, on 100 keep-alive connections: the cost of a static file server's path for a
    // small file (the request's path made safe, the file found, its head and body sent), which every server here
    // serves from memory or from its cache of open files.
    name: 'static/1kb',
    request: { method: 'GET', path: '/1kb.txt' },
    docroot: STATIC_FILES,
    compareHeaders: STATIC_COMPARE_HEADERS,
    servers: staticServers({ tls: false }),
  },
  {
    // A 1 MiB file: per request is per MiB. loopwire, nginx and h2o stream it from the page cache (loopwire and
    // nginx with sendfile(2)); the JavaScript stacks through fs.createReadStream.
    name: 'static/1mb',
    request: { method: 'GET', path: '/1mb.txt' },
    unit: 'MiB',
    callgrindSecondsPerRequest: MIB_CALLGRIND_SECONDS,
    docroot: STATIC_FILES,
    compareHeaders: STATIC_COMPARE_HEADERS,
    servers: staticServers({ tls: false }),
  },
  {
    // The 1 MiB file over TLS (1.3): read from the file and encrypted in user space by every server, in records.
    name: 'static/1mb-tls',
    request: { method: 'GET', path: '/1mb.txt', tls: true },
    unit: 'MiB',
    callgrindSecondsPerRequest: MIB_CALLGRIND_SECONDS,
    docroot: STATIC_FILES,
    compareHeaders: STATIC_COMPARE_HEADERS,
    servers: staticServers({ tls: true }),
  },
  {
    // 50 KiB of text asked for with Accept-Encoding: gzip, answered with its precompressed sibling (50kb.txt.gz,
    // about 7.6 KiB) from each server's cache: what serving a site's compressed assets costs, with no compression
    // per request (loopwire holds the variant in memory; nginx and h2o open the .gz through their cache of open
    // files).
    name: 'static/gzip-50kb',
    request: { method: 'GET', path: '/50kb.txt', headers: { 'Accept-Encoding': 'gzip' } },
    docroot: GZIP_FILES,
    compareHeaders: GZIP_COMPARE_HEADERS,
    servers: staticServers({ tls: false, precompressed: true }),
  },
  {
    // 50 KiB of JSON from a handler, asked for with Accept-Encoding: gzip and gzipped per request (the issue's
    // "dynamic" compression): loopwire at its default gzip level, 4, against the compression middleware on
    // ultimate-express at its default, 6, each as its users run it. Level 4's answer is some 16 % larger (9,167
    // bytes against 7,910; the report notes the bytes per response of each side).
    name: 'compress/json-50kb',
    request: { method: 'GET', path: '/json', headers: { 'Accept-Encoding': 'gzip' } },
    docroot: COMPRESS_FILES,
    compareHeaders: COMPRESS_COMPARE_HEADERS,
    compareBody: 'decoded',
    callgrindSecondsPerRequest: COMPRESS_CALLGRIND_SECONDS,
    servers: compressServers(),
  },
  {
    // The same with loopwire at gzip level 6, the middleware's: output of the same size, so that CPU per request
    // compares the two coding paths alone. The zlib differs by arm: the addon codes with Node's own (its deflate
    // symbols are Node's), as the middleware does, to the same 7,910 bytes; the C++ server with the system's
    // libz.so.1, to 7,914.
    name: 'compress/json-50kb-level6',
    request: { method: 'GET', path: '/json', headers: { 'Accept-Encoding': 'gzip' } },
    docroot: COMPRESS_FILES,
    compareHeaders: COMPRESS_COMPARE_HEADERS,
    compareBody: 'decoded',
    callgrindSecondsPerRequest: COMPRESS_CALLGRIND_SECONDS,
    servers: compressServers({ gzipLevel: MIDDLEWARE_GZIP_LEVEL }),
  },
  ...h2Scenarios(true),
  ...h2Scenarios(false),
].map((scenario) => ({
  enabled: true,
  compareHeaders: [],
  compareBody: 'bytes',
  connections: DEFAULT_CONNECTIONS,
  pipeline: DEFAULT_PIPELINE,
  unit: 'request',
  joinSeconds: 0,
  ...scenario,
  request: { mode: 'http', headers: {}, tls: false, ...scenario.request },
}));

module.exports = { IMPLEMENTATIONS, SCENARIOS, DEFAULT_CONNECTIONS, DEFAULT_PIPELINE, FANOUT_SUBSCRIBERS, TLS_ARGS,
  STATIC_FILES, GZIP_FILES, STATIC_COMPARE_HEADERS, GZIP_COMPARE_HEADERS, PRECOMPRESSED_ARG, COMPRESS_FILES,
  COMPRESS_COMPARE_HEADERS, GZIP_LEVEL_ARG, MIDDLEWARE_GZIP_LEVEL };
