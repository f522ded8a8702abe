'use strict';
// CPU time from /proc: the stat line's fields, and the sum over a process tree.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseStat, readProcessTable, treeTicks, clockTicksPerSecond, cpuSeconds, cpuPressureSeconds } =
  require('../procstat');

// A /proc/<pid>/stat line with the given fields (everything else 0).
function statLine({ pid, comm, ppid, utime, stime, cutime = 0, cstime = 0 }) {
  const after = ['S', ppid, 0, 0, 0, 0, 0, 0, 0, 0, 0, utime, stime, cutime, cstime, 20, 0, 1, 0, 0, 0];
  return `${pid} (${comm}) ${after.join(' ')}\n`;
}

test('parseStat reads pid, ppid, utime, stime, cutime and cstime', () => {
  const stat = parseStat(statLine({ pid: 42, comm: 'server', ppid: 7, utime: 150, stime: 30, cutime: 5, cstime: 2 }));
  assert.deepEqual(stat, { pid: 42, comm: 'server', ppid: 7, utime: 150, stime: 30, cutime: 5, cstime: 2 });
});

test('parseStat survives a command name with spaces and parentheses', () => {
  const stat = parseStat(statLine({ pid: 9, comm: 'a) b (c', ppid: 1, utime: 11, stime: 12 }));
  assert.equal(stat.comm, 'a) b (c');
  assert.equal(stat.utime, 11);
  assert.equal(stat.stime, 12);
});

test('parseStat refuses what is not a stat line', () => {
  assert.throws(() => parseStat('garbage'));
  assert.throws(() => parseStat('1 (x) S 0 0'));
});

test('treeTicks sums a process, its descendants and their reaped children, not its siblings', () => {
  const table = new Map([
    [10, { pid: 10, ppid: 1, utime: 100, stime: 10, cutime: 3, cstime: 1 }],
    [11, { pid: 11, ppid: 10, utime: 50, stime: 5, cutime: 0, cstime: 0 }],
    [12, { pid: 12, ppid: 11, utime: 7, stime: 1, cutime: 0, cstime: 0 }],
    [20, { pid: 20, ppid: 1, utime: 999, stime: 999, cutime: 0, cstime: 0 }],
  ]);
  assert.equal(treeTicks(10, table), 114 + 55 + 8);
  assert.equal(treeTicks(12, table), 8);
  assert.equal(treeTicks(99, table), null);
});

test('readProcessTable reads a /proc-like directory and skips entries that vanish', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-procstat-'));
  try {
    fs.mkdirSync(path.join(root, '5'));
    fs.writeFileSync(path.join(root, '5', 'stat'), statLine({ pid: 5, comm: 'x', ppid: 1, utime: 4, stime: 6 }));
    fs.mkdirSync(path.join(root, '6'));
    fs.mkdirSync(path.join(root, 'self'));
    const table = readProcessTable(root);
    assert.deepEqual([...table.keys()], [5]);
    assert.equal(cpuSeconds(5, root), 10 / clockTicksPerSecond());
    assert.throws(() => cpuSeconds(6, root), /gone/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('cpuSeconds of this process grows when it burns CPU', () => {
  assert.ok(clockTicksPerSecond() > 0);
  const before = cpuSeconds(process.pid);
  const end = Date.now() + 100;
  while (Date.now() < end) {
    // Burn CPU.
  }
  assert.ok(cpuSeconds(process.pid) - before >= 0.05);
});

test('cpuPressureSeconds reads the total of the some line, or null without PSI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-procstat-'));
  try {
    const file = path.join(dir, 'cpu');
    fs.writeFileSync(file, 'some avg10=1.00 avg60=2.00 avg300=3.00 total=2500000\n' +
      'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n');
    assert.equal(cpuPressureSeconds(file), 2.5);
    assert.equal(cpuPressureSeconds(path.join(dir, 'absent')), null);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
