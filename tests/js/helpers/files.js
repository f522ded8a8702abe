'use strict';
// Helpers of the file-serving tests (static, sendfile, compress): a folder of files made for one test, and curl run
// as a real client.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');

/**
 * Makes a folder "root" inside a new temporary folder, writes files ({ relativePath: content }) into it, and removes
 * everything with t.after. Returns the root's path; its parent is the test's too (for files outside the root).
 */
function temporaryFolder(t, files) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-files-'));
  const root = path.join(parent, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  t.after(() => fs.rmSync(parent, { recursive: true, force: true }));
  return root;
}

/**
 * Runs curl -s with args; resolves with its output, as a latin1 string (encoding 'latin1', the default) or a Buffer
 * (encoding 'buffer').
 */
function curl(args, encoding = 'latin1') {
  return new Promise((resolve, reject) => {
    // Without a sanitizer runtime preloaded for node (scripts/test-js-sanitized.js), which curl must not get.
    const env = { ...process.env };
    delete env.LD_PRELOAD;
    execFile('curl', ['-s', ...args], { env, encoding, maxBuffer: 64 << 20 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

module.exports = { temporaryFolder, curl };
