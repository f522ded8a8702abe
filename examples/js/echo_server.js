// A WebSocket echo server, for conformance runs (the Autobahn|Testsuite fuzzing client) and the ws benchmarks:
// every message comes back as it came, text as text and binary as binary, up to 16 MiB.
//   node examples/js/echo_server.js --port 9001 --compression shared|dedicated|off
// --port 0 (or PORT=0) picks a free port; it prints `listening on <port>`.
'use strict';
const { parseArgs } = require('node:util');
const uWS = require('loopwire');

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '9001' },
    compression: { type: 'string', default: 'off' },
  },
});

const COMPRESSION = {
  off: uWS.DISABLED,
  shared: uWS.SHARED_COMPRESSOR | uWS.SHARED_DECOMPRESSOR,
  dedicated: uWS.DEDICATED_COMPRESSOR | uWS.DEDICATED_DECOMPRESSOR,
};
if (!(values.compression in COMPRESSION)) {
  console.error(`--compression must be shared, dedicated or off, not ${values.compression}`);
  process.exit(2);
}
const port = Number(values.port);
const compress = values.compression !== 'off';

uWS.App()
  .ws('/*', {
    compression: COMPRESSION[values.compression],
    maxPayloadLength: 16 * 1024 * 1024,
    idleTimeout: 60,
    // A peer that reads slowly still gets every echo: the backpressure limit is the largest message.
    maxBackpressure: 16 * 1024 * 1024,
    message: (ws, message, isBinary) => {
      ws.send(message, isBinary, compress);
    },
  })
  .listen(port, (listenSocket) => {
    if (listenSocket) {
      console.log(`listening on ${uWS.us_socket_local_port(listenSocket)}`);
    } else {
      console.error(`could not listen on port ${port}`);
      process.exitCode = 1;
    }
  });
