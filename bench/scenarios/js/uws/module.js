'use strict';
// Loads the module a uWebSockets.js-API scenario server runs on, named by --module: the loopwire package root
// (the A/B runner passes the arm's checkout) or `uwebsockets` (the npm repack of uWebSockets.js, never a
// dependency of this package). The servers in this folder are written once against the uWebSockets.js v20 API
// and run unchanged on both, which is the drop-in promise itself. Exits with UNAVAILABLE_EXIT_STATUS (3) and a
// message when the module does not load.
const { UNAVAILABLE_EXIT_STATUS, parseArgs, parseTlsArgs } = require('../common');

// Returns { uWS, port, key, cert, http2 } (with { tls: true }, --key and --cert are required).
function loadUwsApi({ tls = false } = {}) {
  const args = tls ? parseTlsArgs() : parseArgs();
  if (args.module === null) {
    process.stderr.write('--module is required: the loopwire package root or uwebsockets\n');
    process.exit(2);
  }
  try {
    return { uWS: require(args.module), port: args.port, key: args.key, cert: args.cert, http2: args.http2 };
  } catch (error) {
    process.stderr.write(`cannot load ${args.module}: ${error.message}\n`);
    process.exit(UNAVAILABLE_EXIT_STATUS);
  }
}

// The SSLApp of a TLS scenario server, with the key and certificate of --key and --cert. A module whose SSLApp
// throws (a loopwire without TLS) cannot run the scenario: says so and exits with UNAVAILABLE_EXIT_STATUS, and the
// runner skips it.
function sslApp(uWS, key, cert, options = {}) {
  try {
    return uWS.SSLApp({ key_file_name: key, cert_file_name: cert, ...options });
  } catch (error) {
    process.stderr.write(`SSLApp is not available: ${error.message}\n`);
    process.exit(UNAVAILABLE_EXIT_STATUS);
  }
}

// The App of a server that runs in cleartext or over TLS (given --key and --cert: sslApp), with `http2: true` in
// its options when --http2 was given (the h2c/* and h2/* scenarios; loopwire's option).
function scenarioApp({ uWS, key, cert, http2 }) {
  const options = http2 ? { http2: true } : {};
  return key !== null && cert !== null ? sslApp(uWS, key, cert, options) : uWS.App(options);
}

// The listen callback every server here passes: prints the port, or fails.
function onListen(uWS, port) {
  return (listenSocket) => {
    if (!listenSocket) {
      process.stderr.write(`failed to listen on port ${port}\n`);
      process.exit(1);
    }
    process.stdout.write(`listening on ${uWS.us_socket_local_port(listenSocket)}\n`);
  };
}

module.exports = { loadUwsApi, onListen, scenarioApp, sslApp };
