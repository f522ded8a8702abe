// Graceful shutdown: on SIGTERM or SIGINT, stop accepting connections (us_listen_socket_close), let requests in
// flight finish, then close the App, forcibly after a grace period. The process exits once nothing is left.
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);
const GRACE_MS = 5000;
let inFlight = 0;
let listenSocket = null;

const app = uWS.App()
  .get('/slow', (res) => {
    inFlight++;
    res.onAborted(() => { res.aborted = true; inFlight--; });
    setTimeout(() => {
      if (res.aborted) return;
      res.cork(() => res.end('finished'));
      inFlight--;
    }, 200);
  })
  .get('/*', (res) => res.end('ok'))
  .listen(port, (token) => {
    listenSocket = token;
    if (token) console.log(`listening on port ${uWS.us_socket_local_port(token)}`);
    else process.exitCode = 1;
  });

function shutdown(signal) {
  if (!listenSocket) return;
  console.log(`${signal}: closing the listen socket, ${inFlight} request(s) in flight`);
  uWS.us_listen_socket_close(listenSocket);
  listenSocket = null;
  const started = Date.now();
  const timer = setInterval(() => {
    if (inFlight === 0 || Date.now() - started > GRACE_MS) {
      clearInterval(timer);
      app.close();
      console.log('closed');
    }
  }, 20);
}

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
