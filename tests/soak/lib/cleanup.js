'use strict';
// Whatever must not outlive the runner (server processes, client sockets) registers an undo here. The undos
// run on normal exit, on SIGINT/SIGTERM and when the run's deadline passes; each runs at most once and must be
// synchronous (they also run from process.on('exit')).

const undos = new Set();

/** Registers fn; returns a function that unregisters it (call it once the thing is cleaned up normally). */
function onCleanup(fn) {
  undos.add(fn);
  return () => undos.delete(fn);
}

function cleanUpEverything() {
  for (const fn of [...undos]) {
    undos.delete(fn);
    try {
      fn();
    } catch (error) {
      console.error(`soak: clean-up failed: ${error.message}`);
    }
  }
}

process.on('exit', cleanUpEverything);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`soak: ${signal}, cleaning up`);
    cleanUpEverything();
    process.exit(1);
  });
}

module.exports = { onCleanup, cleanUpEverything };
