'use strict';
// The command line of the static/* JavaScript servers: --docroot DIR (required: the folder the runner made for the
// run, bench/ab/docroot.js), --module SPEC (required: the package the server runs on, the loopwire package root or
// a folder in the runner's npm cache), --port N, --key KEY.pem --cert CERT.pem for static/1mb-tls, and
// --precompressed for static/gzip-50kb (serve file.gz beside a file to a request that accepts gzip: @fastify/static's
// preCompressed; loopwire's app.static does it by default and is not given it).
const { UNAVAILABLE_EXIT_STATUS, parseArgs } = require('../common');

function fail(message) {
  process.stderr.write(`${message}\nusage: node ${process.argv[1]} --module SPEC --docroot DIR [--port N] ` +
    '[--key KEY.pem --cert CERT.pem] [--precompressed]\n');
  process.exit(2);
}

const PRECOMPRESSED_FLAG = '--precompressed';

// Returns { port, modulePath, docroot, tls, precompressed }, tls being { key, cert } (the paths) or null.
function parseStaticArgs(argv = process.argv.slice(2)) {
  // The flag is the static servers' own: parseArgs refuses what the other scenario servers do not take.
  const precompressed = argv.includes(PRECOMPRESSED_FLAG);
  const args = parseArgs(argv.filter((arg) => arg !== PRECOMPRESSED_FLAG));
  if (args.module === null) fail('--module is required');
  if (args.docroot === null) fail('--docroot is required');
  if ((args.key === null) !== (args.cert === null)) fail('--key and --cert go together');
  const tls = args.key === null ? null : { key: args.key, cert: args.cert };
  return { port: args.port, modulePath: args.module, docroot: args.docroot, tls, precompressed };
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
