'use strict';
// Scenario https/hello-world on node:https: http/hello-world over TLS, with the key and certificate files of --key
// and --cert. Every GET is answered with "Hello world!".
const fs = require('node:fs');
const https = require('node:https');
const { HELLO_WORLD, parseTlsArgs, announce, failToListen } = require('../common');

const { port, key, cert } = parseTlsArgs();
const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(404).end();
    return;
  }
  res.end(HELLO_WORLD);
});
server.on('error', () => failToListen(port));
server.listen(port, '127.0.0.1', () => announce(server.address().port));
