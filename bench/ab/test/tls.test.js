'use strict';
// The TLS scenarios' plumbing: the key and certificate made with openssl, the {tlsKey} and {tlsCert} the servers
// are given, and a server that cannot run TLS (exit status 3) reported as unavailable rather than as a failure.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const tls = require('node:tls');
const { serverFor } = require('../arms');
const { startServer } = require('../server');
const { opensslArgs, makeTlsFiles, needsTls } = require('../tls');
const { SCENARIOS } = require('../../scenarios/scenarios');

const ROOT = path.resolve(__dirname, '../../..');

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-tls-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('openssl makes an EC P-256 key and a self-signed certificate for localhost and 127.0.0.1', (t) => {
  const args = opensslArgs('/k.pem', '/c.pem');
  assert.deepEqual(args.slice(0, 6), ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
  const { key, cert } = makeTlsFiles(tempDir(t));
  // Node accepts the pair, and the certificate names both.
  assert.doesNotThrow(() => tls.createSecureContext({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }));
  const certificate = new (require('node:crypto').X509Certificate)(fs.readFileSync(cert));
  assert.match(certificate.subjectAltName, /DNS:localhost/);
  assert.match(certificate.subjectAltName, /IP Address:127\.0\.0\.1/);
  assert.equal(certificate.publicKey.asymmetricKeyDetails.namedCurve, 'prime256v1');
});

test('only a TLS scenario needs the files', () => {
  assert.equal(needsTls(SCENARIOS.filter((s) => s.name === 'http/hello-world')), false);
  assert.equal(needsTls(SCENARIOS), true);
});

test('the servers get the run\'s files, or are skipped without them', () => {
  const scenario = SCENARIOS.find((s) => s.name === 'https/hello-world');
  const arm = { side: 'head', kind: 'worktree', impl: 'node-http', root: ROOT, buildDir: '/nonexistent' };
  const withFiles = serverFor({ ...arm, tls: { key: '/run/key.pem', cert: '/run/cert.pem' } }, scenario);
  assert.deepEqual(withFiles.argv.slice(-6), ['--key', '/run/key.pem', '--cert', '/run/cert.pem', '--port', '0']);
  assert.match(serverFor({ ...arm, tls: null }, scenario).skip, /TLS key and certificate/);
  const command = serverFor({ side: 'base', kind: 'command', root: ROOT, command: 'srv --key {tlsKey} --cert {tlsCert}',
    tls: { key: '/k', cert: '/c' } }, scenario);
  assert.deepEqual(command.argv, ['sh', '-c', 'exec srv --key /k --cert /c --port 0']);
});

test('a server that exits with status 3 before listening is unavailable, not failed', async () => {
  const exitWith = (status) => startServer({ argv: [process.execPath, '-e', `process.exit(${status})`],
    cwd: ROOT, label: `exits ${status}` });
  await assert.rejects(exitWith(3), (error) => error.unavailable === true);
  await assert.rejects(exitWith(1), (error) => error.unavailable === false);
});

test('node:https serves https/hello-world with the files', async (t) => {
  const files = makeTlsFiles(tempDir(t));
  const scenario = SCENARIOS.find((s) => s.name === 'https/hello-world');
  const spec = serverFor({ side: 'head', kind: 'worktree', impl: 'node-http', root: ROOT, tls: files }, scenario);
  const server = await startServer({ argv: spec.argv, cwd: spec.cwd, label: 'https/hello-world node-http' });
  t.after(() => server.stop());
  const { requestOnce } = require('../check');
  const answer = await requestOnce(scenario, server.port);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.toString(), 'Hello world!');
});
