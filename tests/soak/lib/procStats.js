'use strict';
// A process's resident memory and open file descriptors, read from /proc (Linux). null once it has exited.

const fs = require('node:fs');

/** VmRSS of pid in bytes. */
function residentBytes(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The number of entries of /proc/<pid>/fd. */
function openFdCount(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

module.exports = { residentBytes, openFdCount };
