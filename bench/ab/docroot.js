'use strict';
// The document root of the static/* and compress/* scenarios: made for each run that has one of them, in the run's
// temporary folder, and given to every server by path ({docroot} in the scenario table), so that all of them serve
// (or read) the very same files. A scenario names its files as { name: { kind, size, gzip } }, each made from a
// fixed xorshift32 sequence seeded by its size: the same bytes in every run and on every machine, and readable in a
// diff when two servers answer differently. Kinds:
//   'printable'  printable ASCII (space to tilde) drawn at random: not compressible to nothing (gzip takes off
//                some 20 %), so that no server's answer depends on whether it compresses;
//   'text'       lines of JSON made of a small vocabulary, compressible as real text assets are (gzip -9 makes it
//                about a sixth of its size), for the scenarios that serve a compressed variant;
//   'json'       the same records as one JSON document (an array), for the compress/* scenarios, whose servers read
//                it at start-up and answer it as an API answers JSON, coded per request;
//   'hello'      "Hello world!", the body h2o and nginx serve as a file for the h2/hello-* scenarios.
// gzip: true also writes name.gz beside the file, compressed by node:zlib at GZIP_LEVEL: the precompressed sibling
// that nginx's gzip_static, h2o's file.send-compressed, @fastify/static's preCompressed and loopwire's
// precompressed option serve, the same bytes for all of them.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { HELLO_WORLD } = require('../scenarios/js/common');

const FIRST_PRINTABLE = 0x20;
const PRINTABLE_COUNT = 0x7f - FIRST_PRINTABLE;
// Mixed into the size so that the seed is never 0, where xorshift would stay.
const SEED_SALT = 0x9e3779b9;
// The level the .gz siblings are made at: the highest, as a build step that precompresses its assets uses.
const GZIP_LEVEL = 9;
// The extension of a file's gzip sibling.
const GZIP_SUFFIX = '.gz';

// The 32-bit xorshift sequence seeded by size: a function returning its next value.
function xorshift32(size) {
  let state = (size ^ SEED_SALT) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

// size bytes of printable text, the same for the same size.
function printableBytes(size) {
  const bytes = Buffer.allocUnsafe(size);
  const next = xorshift32(size);
  for (let i = 0; i < size; i++) bytes[i] = FIRST_PRINTABLE + (next() % PRINTABLE_COUNT);
  return bytes;
}

// The words of compressibleText: few, so that gzip finds them again and again, as in the keys and values of an
// API's JSON or the prose of a page; the numbers between them keep it from collapsing into one repeated line.
const TEXT_WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett',
  'kilo', 'lima', 'mike', 'november', 'oscar', 'papa'];
// The range of the score in each line.
const TEXT_SCORE_RANGE = 1000;

// One record of the text kinds, its words and score drawn from next:
// {"id":1,"name":"delta kilo","tags":["echo","mike"],"score":417}.
function textRecord(id, next) {
  const word = () => TEXT_WORDS[next() % TEXT_WORDS.length];
  return `{"id":${id},"name":"${word()} ${word()}","tags":["${word()}","${word()}"],` +
    `"score":${next() % TEXT_SCORE_RANGE}}`;
}

// size bytes of JSON lines, one record each, the same for the same size; the last line is cut at size and ends with
// a newline.
function compressibleText(size) {
  const next = xorshift32(size);
  const lines = [];
  let length = 0;
  for (let id = 1; length < size; id++) {
    const line = `${textRecord(id, next)}\n`;
    lines.push(line);
    length += line.length;
  }
  const bytes = Buffer.from(lines.join('')).subarray(0, size);
  if (size > 0) bytes[size - 1] = 0x0a;
  return bytes;
}

// How a 'json' document opens and closes, around its records (one a line).
const JSON_OPEN = '[';
const JSON_SEPARATOR = ',\n';
const JSON_CLOSE = ']\n';

// size bytes of one JSON document, an array of the records compressibleText's lines hold, the same for the same
// size: records go in while the array still fits, and spaces before the closing bracket (whitespace, which JSON
// allows there) make up the exact size, less than one record's worth.
function jsonDocument(size) {
  const least = JSON_OPEN.length + JSON_CLOSE.length;
  if (size < least) throw new Error(`a JSON document takes at least ${least} bytes, not ${size}`);
  const next = xorshift32(size);
  let text = JSON_OPEN;
  for (let id = 1; ; id++) {
    const record = (id === 1 ? '' : JSON_SEPARATOR) + textRecord(id, next);
    if (text.length + record.length + JSON_CLOSE.length > size) break;
    text += record;
  }
  return Buffer.from(text + ' '.repeat(size - text.length - JSON_CLOSE.length) + JSON_CLOSE);
}

// The hello-world answer (bench/scenarios/js/common.js HELLO_WORLD), which size must match: the file h2o and nginx
// serve for the h2/hello-* scenarios, where the other servers answer it from a handler.
function helloWorld(size) {
  const bytes = Buffer.from(HELLO_WORLD);
  if (size !== bytes.length) throw new Error(`a hello file is ${bytes.length} bytes, not ${size}`);
  return bytes;
}

const FILE_KINDS = { printable: printableBytes, text: compressibleText, json: jsonDocument, hello: helloWorld };

// The bytes of a docroot file ({ kind, size }).
function fileBytes({ kind, size }) {
  const make = FILE_KINDS[kind];
  if (!make) throw new Error(`no docroot file kind called ${kind}; one of ${Object.keys(FILE_KINDS).join(', ')}`);
  return make(size);
}

// The file a docroot entry describes, as text for messages: "51200 bytes of text (and .gz)".
const describeFile = ({ kind, size, gzip }) => `${size} bytes of ${kind}${gzip ? ` (and ${GZIP_SUFFIX})` : ''}`;

// The files every chosen scenario needs (their `docroot`: { name: { kind, size, gzip } }), merged; a name asked for
// as two different files is an error in the table.
function docrootFiles(scenarios) {
  const files = {};
  for (const scenario of scenarios) {
    for (const [name, file] of Object.entries(scenario.docroot ?? {})) {
      const entry = { kind: file.kind, size: file.size, gzip: file.gzip ?? false };
      if (files[name] !== undefined && describeFile(files[name]) !== describeFile(entry)) {
        throw new Error(`${scenario.name}: ${name} is ${describeFile(entry)} here and ${describeFile(files[name])} ` +
          'elsewhere');
      }
      files[name] = entry;
    }
  }
  return files;
}

// Writes files ({ name: { kind, size, gzip } }) into dir, made if needed, each with its .gz sibling when gzip is
// set. Returns dir.
function makeDocroot(dir, files) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, file] of Object.entries(files)) {
    const bytes = fileBytes(file);
    fs.writeFileSync(path.join(dir, name), bytes);
    if (file.gzip) fs.writeFileSync(path.join(dir, name + GZIP_SUFFIX), zlib.gzipSync(bytes, { level: GZIP_LEVEL }));
  }
  return dir;
}

module.exports = { GZIP_LEVEL, GZIP_SUFFIX, printableBytes, compressibleText, jsonDocument, fileBytes, docrootFiles,
  makeDocroot };
