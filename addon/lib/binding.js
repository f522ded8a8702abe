'use strict';
// Loads the native module built for the Node that is running: scripts/build-addon.js (run by `npm install`)
// puts it in build-addon/node-v<ABI>/, ABI being process.versions.modules, so one checkout can hold builds for
// several Node versions at once. LOOPWIRE_ADDON_DIR names another folder to load from (a sanitizer build, for
// instance).

const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

/**
 * Returns the exports of build-addon/node-v<ABI>/<name>.node ("loopwire", or "loopwire_counting", the test
 * build that counts handles and allocations).
 */
function loadNative(name) {
  const folder = process.env.LOOPWIRE_ADDON_DIR ? path.resolve(process.env.LOOPWIRE_ADDON_DIR) :
    path.join(root, 'build-addon', `node-v${process.versions.modules}`);
  const file = path.join(folder, `${name}.node`);
  try {
    return require(file);
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND') {
      throw new Error(`loopwire: the native addon is not built for this Node (${process.version}, ABI ` +
                      `${process.versions.modules}): run \`npm install\`, or \`node scripts/build-addon.js\`, in ${root}`);
    }
    throw error;
  }
}

module.exports = { loadNative };
