'use strict';
// Scenarios static/* on express.static, as an Express application gets it on ultimate-express (the Express API on
// uWebSockets.js; --module: its folder in the runner's cache, bench/ab/stacks.js), with the defaults of both: small
// files are read by ultimate-express's file worker thread, larger ones piped from fs.createReadStream. Over TLS
// (--key, --cert) the application runs on uWebSockets.js's SSLApp. Exits with UNAVAILABLE_EXIT_STATUS when the
// package does not load here (uWebSockets.js's binaries load only on some Node lines and glibc versions).
const { announce, failToListen } = require('../common');
const { parseStaticArgs, requireOrUnavailable } = require('./args');

const { port, modulePath, docroot, tls } = parseStaticArgs();
const express = requireOrUnavailable(modulePath);
const app = express(tls ? { uwsOptions: { key_file_name: tls.key, cert_file_name: tls.cert } } : {});
app.use(express.static(docroot));
try {
  app.listen(port, '127.0.0.1', (listeningPort) => announce(listeningPort));
} catch {
  failToListen(port);
}
