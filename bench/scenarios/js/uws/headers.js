'use strict';
// Scenario http/headers on the uWebSockets.js API: GET /headers reads x-request-id, accept, user-agent and the
// query parameters user and lang, and answers with three headers and common.js headersAnswer.
// With --http2 (loopwire's option), over HTTP/2 too (h2c/headers, and h2/headers given --key and --cert).
const { headersAnswer } = require('../common');
const { loadUwsApi, onListen, scenarioApp } = require('./module');

const loaded = loadUwsApi();
const { uWS, port } = loaded;
scenarioApp(loaded)
  .get('/headers', (res, req) => {
    const requestId = req.getHeader('x-request-id');
    const answer = headersAnswer(req.getQuery('user'), req.getQuery('lang'), req.getHeader('accept'),
      req.getHeader('user-agent'));
    if (answer === null) {
      res.writeStatus('400 Bad Request').end('too long');
      return;
    }
    res
      .writeHeader('X-Request-Id', requestId)
      .writeHeader('Content-Type', 'text/plain; charset=utf-8')
      .writeHeader('Cache-Control', 'no-store')
      .end(answer);
  })
  .listen(port, onListen(uWS, port));
