'use strict';
// Scenarios compress/* on the loopwire addon: app.compress('/*') (with { gzipLevel } given --gzip-level, loopwire's
// default of 4 otherwise) codes every answer anew by the request's Accept-Encoding, and GET /json answers the
// document read from --body as application/json, as a handler of the uWebSockets.js API writes it. A loopwire
// without app.compress (a commit before it) cannot run the scenario: exits with UNAVAILABLE_EXIT_STATUS.
const { UNAVAILABLE_EXIT_STATUS } = require('../common');
const { onListen } = require('../uws/module');
const { parseCompressArgs, readBody, requireOrUnavailable } = require('./args');

const { port, modulePath, bodyFile, gzipLevel } = parseCompressArgs();
const json = readBody(bodyFile);
const uWS = requireOrUnavailable(modulePath);
const app = uWS.App();
if (typeof app.compress !== 'function') {
  process.stderr.write(`${modulePath} has no app.compress\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}
app
  .compress('/*', gzipLevel === null ? {} : { gzipLevel })
  .get('/json', (res) => {
    res.writeHeader('content-type', 'application/json').end(json);
  })
  .listen(port, onListen(uWS, port));
