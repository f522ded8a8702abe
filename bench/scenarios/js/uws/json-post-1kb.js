'use strict';
// Scenario http/json-post-1kb on the uWebSockets.js API: POST /json; the body arrives through onData (its
// ArrayBuffers are only valid during the call, so pieces are copied; a body in one piece is parsed in place),
// with onAborted, and is answered by common.js jsonAnswer. A body over MAX_BODY_BYTES gets 413 and the
// connection is closed.
// With --http2 (loopwire's option), over HTTP/2 too (h2c/post-1kb, and h2/post-1kb given --key and --cert).
const { MAX_BODY_BYTES, jsonAnswer } = require('../common');
const { loadUwsApi, onListen, scenarioApp } = require('./module');

const loaded = loadUwsApi();
const { uWS, port } = loaded;
scenarioApp(loaded)
  .post('/json', (res) => {
    let collected = null;
    let finished = false;
    res.onAborted(() => {
      finished = true;
    });
    res.onData((chunk, isLast) => {
      if (finished) return;
      const piece = Buffer.from(chunk);
      const size = (collected === null ? 0 : collected.length) + piece.length;
      if (size > MAX_BODY_BYTES) {
        finished = true;
        res.cork(() => res.writeStatus('413 Content Too Large').end('', true));
        return;
      }
      if (!isLast) {
        collected = collected === null ? Buffer.from(piece) : Buffer.concat([collected, piece]);
        return;
      }
      finished = true;
      const { status, body } = jsonAnswer(collected === null ? piece : Buffer.concat([collected, piece]));
      res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(body));
    });
  })
  .listen(port, onListen(uWS, port));
