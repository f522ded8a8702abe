'use strict';
// The key and certificate of the TLS scenarios: made with the openssl command for each run, into the run's
// temporary folder, and given to every server by path ({tlsKey}, {tlsCert} in the scenario table).
//
// EC P-256 rather than RSA: an ECDSA signature costs the server a fraction of an RSA-2048 one, so a handshake
// measures the server rather than the key, and it is what TLS deployments choose today. Self-signed, for
// "localhost" and 127.0.0.1, valid for two days: lwload does not check it unless given --cacert, and a run never
// lasts that long.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// How long the certificate is valid, in days.
const CERTIFICATE_DAYS = 2;
// How long openssl may take to make the pair.
const OPENSSL_TIMEOUT_MS = 30000;

// The openssl arguments that write a key to keyFile and a certificate for it to certFile.
function opensslArgs(keyFile, certFile) {
  return ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-days', String(CERTIFICATE_DAYS), '-keyout', keyFile, '-out', certFile];
}

// Makes key.pem and cert.pem in dir. Returns { key, cert } (their paths), or throws with what openssl said.
function makeTlsFiles(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const result = spawnSync('openssl', opensslArgs(key, cert), { encoding: 'utf8', timeout: OPENSSL_TIMEOUT_MS });
  if (result.status !== 0 || !fs.existsSync(key) || !fs.existsSync(cert)) {
    const why = result.error?.message ?? (result.stderr.trim().split('\n').pop() || `exit status ${result.status}`);
    throw new Error(`openssl could not make a key and certificate: ${why}`);
  }
  return { key, cert };
}

// Whether any of the scenarios is loaded over TLS.
function needsTls(scenarios) {
  return scenarios.some((scenario) => scenario.request.tls);
}

module.exports = { CERTIFICATE_DAYS, opensslArgs, makeTlsFiles, needsTls };
