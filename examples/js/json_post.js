// A JSON POST endpoint: reads the body with onData (chunks must be copied: they are detached after each call),
// refuses bodies over 64 KiB, answers 400 on bad JSON, and registers onAborted as every async response must.
//   curl -d '{"a":1}' localhost:3000/echo
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);
const MAX_BODY_BYTES = 64 * 1024;

function readJson(res, onJson) {
  const chunks = [];
  let size = 0;
  res.onAborted(() => { res.aborted = true; });
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      if (!res.done) res.writeStatus('413 Payload Too Large').end('body too large', true);
      res.done = true;
      return;
    }
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast || res.done) return;
    let value;
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeStatus('400 Bad Request').end('invalid JSON');
      return;
    }
    onJson(value);
  });
}

uWS.App()
  .post('/echo', (res) => {
    readJson(res, (value) => {
      res.writeHeader('content-type', 'application/json').end(JSON.stringify({ received: value }));
    });
  })
  .listen(port, (listenSocket) => {
    if (listenSocket) console.log(`listening on port ${uWS.us_socket_local_port(listenSocket)}`);
    else process.exitCode = 1;
  });
