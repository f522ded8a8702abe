'use strict';
// Scenarios compress/* on Express's way of coding answers: the compression middleware (app.use(compression()), its
// defaults: gzip at zlib's level 6, answers from 1 KiB, coded in a zlib stream on Node's thread pool) on
// ultimate-express, the Express API on uWebSockets.js (--module: its folder in the runner's cache, with compression
// beside it, bench/ab/stacks.js). GET /json sends the document read from --body with res.send as application/json,
// the application with Express's default settings: its ETag (a hash of the body) is made only for an answer that
// goes out whole, and a coded one goes out as the middleware's stream, without, as loopwire's handler writes none.
// --gzip-level N, for a command line of one's own, sets the middleware's level. Exits with
// UNAVAILABLE_EXIT_STATUS when the packages do not load here (uWebSockets.js's binaries load only on some Node lines
// and glibc versions).
const path = require('node:path');
const { announce, failToListen } = require('../common');
const { parseCompressArgs, readBody, requireOrUnavailable } = require('./args');

const { port, modulePath, bodyFile, gzipLevel } = parseCompressArgs();
const json = readBody(bodyFile);
const express = requireOrUnavailable(modulePath);
const compression = requireOrUnavailable(path.join(path.dirname(modulePath), 'compression'));
const app = express();
app.use(compression(gzipLevel === null ? {} : { level: gzipLevel }));
app.get('/json', (req, res) => {
  res.set('Content-Type', 'application/json').send(json);
});
try {
  app.listen(port, '127.0.0.1', (listeningPort) => announce(listeningPort));
} catch {
  failToListen(port);
}
