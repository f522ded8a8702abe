'use strict';
// The package: require and import entries, the exports map, and every name of the module.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { runNode } = require('./helpers/child.js');

const root = path.resolve(__dirname, '..', '..');
const pkg = require('../../package.json');

const NAMES = ['App', 'SSLApp', 'us_listen_socket_close', 'us_socket_local_port', 'LIBUS_LISTEN_EXCLUSIVE_PORT',
               'getParts', 'DeclarativeResponse'];

test('package.json has main, types and an exports map with types first', () => {
  assert.equal(pkg.main, 'addon/lib/index.js');
  assert.equal(pkg.types, 'addon/lib/index.d.ts');
  const conditions = Object.keys(pkg.exports['.']);
  assert.equal(conditions[0], 'types');
  assert.deepEqual(conditions.slice(1).sort(), ['import', 'require']);
  assert.equal(pkg.scripts.install, 'node scripts/install.js');
});

test("require('loopwire') and import 'loopwire' resolve through the exports map", async () => {
  // Inside the package, its own name resolves through "exports" (package self-reference), as it does from a
  // project that depends on it.
  const required = require('loopwire');
  assert.deepEqual(Object.keys(required).filter((key) => NAMES.includes(key)).sort(), [...NAMES].sort());
  assert.equal(required, require(path.join(root, pkg.main)));
  const imported = await runNode(['--input-type=module', '-e',
    "import { App, getParts } from 'loopwire'; console.log(typeof App, typeof getParts);"], { cwd: root });
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stdout.trim(), 'function function');
});

test('the ES module entry exports the same functions', async () => {
  const entry = path.join(root, 'addon', 'lib', 'index.mjs');
  const script = `
    import * as lw from ${JSON.stringify(entry)};
    import lwDefault from ${JSON.stringify(entry)};
    const cjs = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(root)});
    console.log(JSON.stringify({
      names: Object.keys(lw).filter((key) => key !== 'default').sort(),
      same: lw.App === cjs.App && lwDefault.App === cjs.App,
    }));
  `;
  const result = await runNode(['--input-type=module', '-e', script]);
  assert.equal(result.code, 0, result.stderr);
  const { names, same } = JSON.parse(result.stdout);
  assert.deepEqual(names, [...NAMES].sort());
  assert.ok(same);
});

// docs/frameworks.md: code written for uWebSockets.js runs on loopwire through a dependency named
// `uWebSockets.js` that points at it.
test("a dependency named uWebSockets.js (file:) serves code that does require('uWebSockets.js')", async (t) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const { execFile } = require('node:child_process');
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-alias-'));
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({
    name: 'framework-user', private: true, dependencies: { 'uWebSockets.js': `file:${root}` },
  }));
  // Offline, and without the install script: this checkout's addon is built already.
  await new Promise((resolve, reject) => {
    execFile('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'],
             { cwd: project }, (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve()));
  });
  fs.writeFileSync(path.join(project, 'server.js'), `
    const uWS = require('uWebSockets.js');
    const app = uWS.App().get('/*', (res, req) => res.end('hello ' + req.getUrl()));
    app.listen('127.0.0.1', 0, async (token) => {
      const response = await fetch('http://127.0.0.1:' + uWS.us_socket_local_port(token) + '/from-alias');
      console.log(await response.text());
      app.close();
    });
  `);
  fs.writeFileSync(path.join(project, 'server.mjs'), `
    import uWS from 'uWebSockets.js';
    import { App } from 'uWebSockets.js';
    console.log(uWS.App === App);
  `);
  const required = await runNode(['server.js'], { cwd: project });
  assert.equal(required.code, 0, required.stderr);
  assert.equal(required.stdout.trim(), 'hello /from-alias');
  const imported = await runNode(['server.mjs'], { cwd: project });
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stdout.trim(), 'true');
});
