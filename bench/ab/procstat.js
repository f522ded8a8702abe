'use strict';
// CPU time of a server from /proc: user + system time of the process, of its live descendants (a server that
// forks workers, or a shell that runs one), and of the children they have already waited for (cutime, cstime).
// Threads are included, since /proc/<pid>/stat counts all of a process's threads. Times are in clock ticks,
// converted with the machine's CLK_TCK (`getconf CLK_TCK`, 100 on Linux). Also the machine's CPU pressure, which
// tells a measurement that other processes disturbed.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

// Field numbers of /proc/<pid>/stat (man 5 proc), counting from 1 as the manual does.
const STAT_FIELD_PPID = 4;
const STAT_FIELD_UTIME = 14;
const STAT_FIELD_CSTIME = 17;
// The fields after the command name start with field 3 (state).
const FIRST_FIELD_AFTER_COMM = 3;

// Parses one /proc/<pid>/stat line. The command name (field 2) is in parentheses and may itself contain spaces
// and parentheses, so the fields are counted from the last ')'.
function parseStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${text.slice(0, 80)}`);
  const fields = text.slice(close + 2).trim().split(/\s+/);
  const field = (n) => Number(fields[n - FIRST_FIELD_AFTER_COMM]);
  if (fields.length < STAT_FIELD_CSTIME - FIRST_FIELD_AFTER_COMM + 1) throw new Error('short /proc stat line');
  return {
    pid: Number(text.slice(0, open)),
    comm: text.slice(open + 1, close),
    ppid: field(STAT_FIELD_PPID),
    utime: field(STAT_FIELD_UTIME),
    stime: field(STAT_FIELD_UTIME + 1),
    cutime: field(STAT_FIELD_UTIME + 2),
    cstime: field(STAT_FIELD_CSTIME),
  };
}

// Every process now: Map pid -> parsed stat. Processes that end while being read are left out.
function readProcessTable(procRoot = '/proc') {
  const table = new Map();
  for (const entry of fs.readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseStat(fs.readFileSync(path.join(procRoot, entry, 'stat'), 'utf8'));
      table.set(stat.pid, stat);
    } catch {
      // The process ended between readdir and read.
    }
  }
  return table;
}

// Ticks used by rootPid and every descendant in table, including children they have reaped; null when rootPid
// is not in the table.
function treeTicks(rootPid, table) {
  if (!table.has(rootPid)) return null;
  const children = new Map();
  for (const stat of table.values()) {
    if (!children.has(stat.ppid)) children.set(stat.ppid, []);
    children.get(stat.ppid).push(stat.pid);
  }
  let ticks = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop();
    const stat = table.get(pid);
    ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

let ticksPerSecond = null;

function clockTicksPerSecond() {
  if (ticksPerSecond === null) {
    ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (!(ticksPerSecond > 0)) throw new Error('getconf CLK_TCK gave no tick rate');
  }
  return ticksPerSecond;
}

// Seconds so far during which some task on this machine was runnable but waited for a CPU (the `some` line of
// /proc/pressure/cpu, Linux 4.20+ with PSI), or null where the kernel does not report it. While only the server
// and lwload run, each on its own CPU, it hardly grows; when it grows, other processes took CPU time from them.
function cpuPressureSeconds(pressureFile = '/proc/pressure/cpu') {
  let text;
  try {
    text = fs.readFileSync(pressureFile, 'utf8');
  } catch {
    return null;
  }
  const match = /^some .*\btotal=(\d+)/m.exec(text);
  return match ? Number(match[1]) / 1e6 : null;
}

// CPU seconds used so far by the process tree rooted at pid. Throws when the process is gone.
function cpuSeconds(pid, procRoot = '/proc') {
  const ticks = treeTicks(pid, readProcessTable(procRoot));
  if (ticks === null) throw new Error(`process ${pid} is gone`);
  return ticks / clockTicksPerSecond();
}

module.exports = { parseStat, readProcessTable, treeTicks, clockTicksPerSecond, cpuSeconds, cpuPressureSeconds };
