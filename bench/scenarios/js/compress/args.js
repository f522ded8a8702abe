'use strict';
// The command line of the compress/* JavaScript servers: --module SPEC (required: the package the server runs on,
// the loopwire package root or a folder in the runner's npm cache), --body FILE (required: the JSON document the
// runner wrote into the run's document root, bench/ab/docroot.js), --gzip-level N (1-9: the gzip level; absent,
// the server's default) and --port N. The body is read here, once, so that every server answers the same bytes.
const fs = require('node:fs');
const { parseArgs } = require('../common');
const { requireOrUnavailable } = require('../static/args');

const BODY_FLAG = '--body';
const GZIP_LEVEL_FLAG = '--gzip-level';
// zlib's gzip levels.
const MIN_GZIP_LEVEL = 1;
const MAX_GZIP_LEVEL = 9;

function fail(message) {
  process.stderr.write(`${message}\nusage: node ${process.argv[1]} --module SPEC --body FILE [--gzip-level N] ` +
    '[--port N]\n');
  process.exit(2);
}

// Returns { port, modulePath, bodyFile, gzipLevel }, gzipLevel being null when not given.
function parseCompressArgs(argv = process.argv.slice(2)) {
  // The flags are these servers' own: parseArgs refuses what the other scenario servers do not take.
  const own = { [BODY_FLAG]: null, [GZIP_LEVEL_FLAG]: null };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (Object.hasOwn(own, argv[i]) && argv[i + 1] !== undefined) own[argv[i]] = argv[++i];
    else rest.push(argv[i]);
  }
  const args = parseArgs(rest);
  if (args.module === null) fail('--module is required');
  if (own[BODY_FLAG] === null) fail('--body is required');
  let gzipLevel = null;
  if (own[GZIP_LEVEL_FLAG] !== null) {
    gzipLevel = Number(own[GZIP_LEVEL_FLAG]);
    if (!Number.isInteger(gzipLevel) || gzipLevel < MIN_GZIP_LEVEL || gzipLevel > MAX_GZIP_LEVEL) {
      fail(`--gzip-level takes ${MIN_GZIP_LEVEL} to ${MAX_GZIP_LEVEL}, not ${own[GZIP_LEVEL_FLAG]}`);
    }
  }
  return { port: args.port, modulePath: args.module, bodyFile: own[BODY_FLAG], gzipLevel };
}

// The body file's bytes, or exits with a message when it cannot be read or is empty.
function readBody(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    fail(`cannot read ${file}: ${error.message}`);
  }
  if (bytes.length === 0) fail(`${file} is empty`);
  return bytes;
}

module.exports = { BODY_FLAG, GZIP_LEVEL_FLAG, parseCompressArgs, readBody, requireOrUnavailable };
