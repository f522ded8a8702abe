'use strict';
// Scenarios static/* on @fastify/static, fastify's file plugin, on node:http (node:https with --key and --cert),
// with the defaults of both (every file streamed by @fastify/send from fs.createReadStream). --module: the fastify
// folder in the runner's cache (bench/ab/stacks.js), with @fastify/static beside it. --precompressed (static/gzip-50kb)
// sets the plugin's preCompressed: file.gz (or file.br) beside a file is streamed to a request that accepts its
// coding.
const fs = require('node:fs');
const path = require('node:path');
const { announce, failToListen } = require('../common');
const { parseStaticArgs, requireOrUnavailable } = require('./args');

const { port, modulePath, docroot, tls, precompressed } = parseStaticArgs();
const fastify = requireOrUnavailable(modulePath);
const fastifyStatic = requireOrUnavailable(path.join(path.dirname(modulePath), '@fastify', 'static'));
const https = tls ? { key: fs.readFileSync(tls.key), cert: fs.readFileSync(tls.cert) } : null;
const app = fastify({ logger: false, ...(https ? { https } : {}) });
app.register(fastifyStatic, { root: docroot, prefix: '/', preCompressed: precompressed });
app.listen({ port, host: '127.0.0.1' }).then(() => announce(app.server.address().port), () => failToListen(port));
