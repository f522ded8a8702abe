'use strict';
// Scenarios static/* on the loopwire addon: app.static('/', docroot) with its default options (files up to 256 KiB
// kept in memory and checked against the disk once a second; larger ones streamed by the core, with sendfile(2) on
// plain TCP), on an App, or on an SSLApp given --key and --cert. A loopwire without app.static (a commit before
// issue 44), or whose SSLApp throws, cannot run the scenario: exits with UNAVAILABLE_EXIT_STATUS.
const { UNAVAILABLE_EXIT_STATUS } = require('../common');
const { onListen, sslApp } = require('../uws/module');
const { parseStaticArgs, requireOrUnavailable } = require('./args');

const { port, modulePath, docroot, tls } = parseStaticArgs();
const uWS = requireOrUnavailable(modulePath);
const app = tls ? sslApp(uWS, tls.key, tls.cert) : uWS.App();
if (typeof app.static !== 'function') {
  process.stderr.write(`${modulePath} has no app.static\n`);
  process.exit(UNAVAILABLE_EXIT_STATUS);
}
app.static('/', docroot).listen(port, onListen(uWS, port));
