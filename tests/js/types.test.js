'use strict';
// index.d.ts describes the whole API: a typed program using every part of it passes tsc --noEmit.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const path = require('node:path');

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  tsc = null;
}

test('tests/js/types/example.ts type-checks against addon/lib/index.d.ts', { skip: tsc ? false : 'typescript is not installed (npm install)' }, async () => {
  const project = path.join(__dirname, 'types', 'tsconfig.json');
  const result = await new Promise((resolve) => {
    execFile(process.execPath, [tsc, '--noEmit', '-p', project], (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, output: stdout + stderr });
    });
  });
  assert.equal(result.code, 0, result.output);
});

test('the CommonJS module is its own default export, as TypeScript without esModuleInterop reads it', () => {
  const loopwire = require('../../addon/lib/index.js');
  assert.equal(loopwire.default, loopwire);
  assert.ok(!Object.keys(loopwire).includes('default'), 'default is not enumerable');
});
