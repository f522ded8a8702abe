'use strict';
// A server under test as a child process: started, its port read from the "listening on <port>" line it
// prints, watched for an early exit, and stopped (SIGTERM, then SIGKILL), also by the run's clean-up.

const { spawn } = require('node:child_process');
const { onCleanup } = require('./lib/cleanup.js');

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 2_000;
const STDERR_TAIL_BYTES = 4096;
const LISTENING_LINE = /listening on (?:port )?(\d+)/;

class ServerProcess {
  /** Starts spec.command with spec.args; resolves once it listens. */
  static async start(spec) {
    const server = new ServerProcess(spawn(spec.command, spec.args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    server.port = await server.portAnnounced();
    return server;
  }

  constructor(child) {
    this.child = child;
    this.pid = child.pid;
    this.stdout = '';
    this.stderr = '';
    this.exit = null;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      resolve(this.exit);
    }));
    this.spawnError = new Promise((_, reject) => child.once('error', reject));
    this.spawnError.catch(() => {});
    child.stdout.on('data', (chunk) => { this.stdout = (this.stdout + chunk).slice(-STDERR_TAIL_BYTES); });
    child.stderr.on('data', (chunk) => { this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_BYTES); });
    this.forgetCleanup = onCleanup(() => child.kill('SIGKILL'));
  }

  portAnnounced() {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      const onData = () => {
        const match = LISTENING_LINE.exec(this.stdout);
        if (!match) return;
        clearTimeout(timer);
        this.child.stdout.off('data', onData);
        resolve(Number(match[1]));
      };
      this.child.stdout.on('data', onData);
      this.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`exited (${describeExit(exit)}) before listening: ${this.stderr.trim()}`));
      });
      this.spawnError.catch((error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  async stop() {
    if (!this.exit) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
    this.forgetCleanup();
  }
}

function describeExit({ code, signal }) {
  return signal ? `signal ${signal}` : `code ${code}`;
}

module.exports = { ServerProcess, describeExit };
