'use strict';
// The Node lines loopwire supports, and the official Node of a line (binary and headers) for this machine's
// tests and prebuilt binaries: the npm package node-linux-<arch>@<major>, installed once into build-node/.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

// What package.json's engines says, and what the package carries prebuilt binaries for. Node 20 is past its end
// of life but is Debian 12's own Node; 22, 24 and 26 are the lines people run.
const SUPPORTED_MAJORS = [20, 22, 24, 26];

/**
 * Installs node-linux-<arch>@<major> (arch "x64" or "arm64") into build-node/ unless it is there already;
 * returns { prefix, node, include } (the node executable, and its include/node folder). Throws when npm cannot.
 */
function installNode(major, arch = 'x64') {
  const prefix = path.join(root, 'build-node', arch === 'x64' ? `node-${major}` : `node-${major}-${arch}`);
  const home = path.join(prefix, 'node_modules', `node-linux-${arch}`);
  const node = path.join(home, 'bin', 'node');
  if (!fs.existsSync(node)) {
    fs.mkdirSync(prefix, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    // npm refuses to install a package made for another CPU, so the package's tarball is fetched (npm pack) and
    // unpacked where npm would have installed it.
    const pack = spawnSync('npm', ['pack', '--silent', '--pack-destination', prefix, `node-linux-${arch}@${major}`],
                           { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = pack.status === 0 ? path.join(prefix, pack.stdout.trim().split('\n').pop()) : null;
    const untar = tarball && spawnSync('tar', ['-xzf', tarball, '-C', home, '--strip-components=1'], { stdio: 'inherit' });
    if (tarball) fs.rmSync(tarball, { force: true });
    if (!untar || untar.status !== 0 || !fs.existsSync(node)) {
      throw new Error(`could not install node-linux-${arch}@${major} into ${prefix}`);
    }
  }
  return { prefix, node, include: path.join(home, 'include', 'node') };
}

module.exports = { SUPPORTED_MAJORS, installNode };
