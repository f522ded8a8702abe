'use strict';
// The document root of the static/* scenarios: made for each run that has one of them, in the run's temporary
// folder, and given to every server by path ({docroot} in the scenario table), so that all of them serve the very
// same files. Each file is printable ASCII (space to tilde) drawn from a fixed xorshift32 sequence seeded by its
// size: the same bytes in every run and on every machine, not compressible to nothing, and readable in a diff when
// two servers answer differently.
const fs = require('node:fs');
const path = require('node:path');

const FIRST_PRINTABLE = 0x20;
const PRINTABLE_COUNT = 0x7f - FIRST_PRINTABLE;
// Mixed into the size so that the seed is never 0, where xorshift would stay.
const SEED_SALT = 0x9e3779b9;

// size bytes of printable text, the same for the same size.
function printableBytes(size) {
  const bytes = Buffer.allocUnsafe(size);
  let state = (size ^ SEED_SALT) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    bytes[i] = FIRST_PRINTABLE + (state % PRINTABLE_COUNT);
  }
  return bytes;
}

// The files every chosen scenario needs (their `docroot`: { name: size }), merged; a name asked for with two
// different sizes is an error in the table.
function docrootFiles(scenarios) {
  const files = {};
  for (const scenario of scenarios) {
    for (const [name, size] of Object.entries(scenario.docroot ?? {})) {
      if (files[name] !== undefined && files[name] !== size) {
        throw new Error(`${scenario.name}: ${name} is ${size} bytes here and ${files[name]} elsewhere`);
      }
      files[name] = size;
    }
  }
  return files;
}

// Writes files ({ name: size }) into dir, made if needed. Returns dir.
function makeDocroot(dir, files) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, size] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), printableBytes(size));
  return dir;
}

module.exports = { printableBytes, docrootFiles, makeDocroot };
