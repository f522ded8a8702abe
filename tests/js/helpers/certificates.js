'use strict';
// Keys and certificates for the TLS tests, made once per process with the openssl command in a temporary folder
// (EC P-256, valid two days): a test CA, server certificates it signed (localhost, other.test, *.wild.test), a
// client certificate, an encrypted key and a self-signed certificate no client trusts. Removed at exit.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const PASSPHRASE = 'correct horse';
let made = null;

function openssl(args) {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function signed(folder, name, subject, extensions) {
  const base = path.join(folder, name);
  fs.writeFileSync(`${base}.ext`, `${extensions}\n`);
  openssl(['req', ...NEW_KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject]);
  openssl(['x509', '-req', '-in', `${base}.csr`, '-CA', path.join(folder, 'ca.pem'), '-CAkey',
    path.join(folder, 'ca.key'), '-CAcreateserial', '-days', '2', '-out', `${base}.pem`, '-extfile', `${base}.ext`]);
  return { key: `${base}.key`, cert: `${base}.pem` };
}

/** Returns the paths: { folder, ca, localhost: {key, cert}, other, wildcard, client, stranger, encryptedKey }. */
function certificates() {
  if (made) return made;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-tls-'));
  process.on('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
  openssl(['req', '-x509', ...NEW_KEY, '-keyout', path.join(folder, 'ca.key'), '-out', path.join(folder, 'ca.pem'),
    '-days', '2', '-subj', '/CN=loopwire-test-ca']);
  const localhost = signed(folder, 'localhost', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  const other = signed(folder, 'other', '/CN=other.test', 'subjectAltName=DNS:other.test');
  const wildcard = signed(folder, 'wildcard', '/CN=*.wild.test', 'subjectAltName=DNS:*.wild.test');
  const client = signed(folder, 'client', '/CN=test client', 'extendedKeyUsage=clientAuth');
  const encryptedKey = path.join(folder, 'encrypted.key');
  openssl(['pkey', '-in', localhost.key, '-aes256', '-passout', `pass:${PASSPHRASE}`, '-out', encryptedKey]);
  const stranger = { key: path.join(folder, 'stranger.key'), cert: path.join(folder, 'stranger.pem') };
  openssl(['req', '-x509', ...NEW_KEY, '-keyout', stranger.key, '-out', stranger.cert, '-days', '2', '-subj',
    '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
  made = { folder, ca: path.join(folder, 'ca.pem'), localhost, other, wildcard, client, stranger, encryptedKey,
    passphrase: PASSPHRASE };
  return made;
}

module.exports = { certificates };
