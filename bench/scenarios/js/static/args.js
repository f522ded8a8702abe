'use strict';
// The command line of the static/* JavaScript servers: --docroot DIR (required: the folder the runner made for the
// run, bench/ab/docroot.js), --module SPEC (required: the package the server runs on, the loopwire package root or
// a folder in the runner's npm cache), --port N, and --key KEY.pem --cert CERT.pem for static/1mb-tls.
const { UNAVAILABLE_EXIT_STATUS, parseArgs } = require('../common');

function fail(message) {
  process.stderr.write(`${message}\nusage: node ${process.argv[1]} --module SPEC --docroot DIR [--port N] ` +
    '[--key KEY.pem --cert CERT.pem]\n');
  process.exit(2);
}

// Returns { port, modulePath, docroot, tls }, tls being { key, cert } (the paths) or null.
function parseStaticArgs(argv = process.argv.slice(2)) {
  const args = parseArgs(argv);
  if (args.module === null) fail('--module is required');
  if (args.docroot === null) fail('--docroot is required');
  if ((args.key === null) !== (args.cert === null)) fail('--key and --cert go together');
  const tls = args.key === null ? null : { key: args.key, cert: args.cert };
  return { port: args.port, modulePath: args.module, docroot: args.docroot, tls };
}

// require(spec), or exits with UNAVAILABLE_EXIT_STATUS (the runner skips the scenario) and the reason.
function requireOrUnavailable(spec) {
  try {
    return require(spec);
  } catch (error) {
    process.stderr.write(`cannot load ${spec}: ${error.message.split('\n')[0]}\n`);
    process.exit(UNAVAILABLE_EXIT_STATUS);
  }
}

module.exports = { parseStaticArgs, requireOrUnavailable };
