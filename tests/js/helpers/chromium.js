'use strict';
// Test helpers: a headless Chromium (the Debian package `chromium`, or $CHROMIUM) driven over the Chrome DevTools
// Protocol with the `ws` client, and polling with a deadline.

const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const WebSocket = require('ws');

/** The Chromium executable: $CHROMIUM, else `chromium` on PATH; null when there is none. */
function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir || '.', 'chromium');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * Resolves with the value of `probe()` once it is truthy, polling every 50 ms; rejects after timeoutMs, saying
 * what did not happen, the last value and the last error (a probe may throw while a page is still loading).
 */
async function waitFor(probe, what, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  let lastError;
  for (;;) {
    try {
      last = await probe();
      if (last) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms (last value ${JSON.stringify(last)}` +
                      `${lastError ? `, last error ${lastError.message}` : ''})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One DevTools connection (to the browser endpoint); commands go to the browser or, with a sessionId, a page. */
class DevTools {
  constructor(socket) {
    this.socket = socket;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    socket.on('message', (data) => {
      const message = JSON.parse(data);
      const call = this.pending.get(message.id);
      if (call) {
        this.pending.delete(message.id);
        if (message.error) call.reject(new Error(`${call.method}: ${message.error.message}`));
        else call.resolve(message.result);
      } else if (message.method) {
        for (const listener of this.listeners) listener(message);
      }
    });
    socket.on('close', () => {
      for (const call of this.pending.values()) call.reject(new Error(`${call.method}: the DevTools socket closed`));
      this.pending.clear();
    });
  }

  /** Sends a command and resolves with its result, or rejects with the protocol's error. */
  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    });
  }

  /**
   * Opens a new page (target) on url and resolves with { evaluate(expression), close(), exceptions, errors }:
   * evaluate resolves with the expression's value (by value) or rejects with the exception it threw; exceptions
   * collects the uncaught ones of the page's own scripts; errors, what the browser itself logged as an error for
   * the page, as "<source>: <text>": a script or style its Content-Security-Policy refused ("security: ..."), a
   * resource that failed to load ("network: ... <url>").
   */
  async openPage(url) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const exceptions = [];
    const errors = [];
    this.listeners.add((message) => {
      if (message.sessionId !== sessionId) return;
      if (message.method === 'Runtime.exceptionThrown') {
        const details = message.params.exceptionDetails;
        exceptions.push(details.exception?.description ?? details.text);
      } else if (message.method === 'Log.entryAdded' && message.params.entry.level === 'error') {
        const { source, text, url: resource } = message.params.entry;
        errors.push(`${source}: ${text}${resource ? ` ${resource}` : ''}`);
      }
    });
    await this.send('Runtime.enable', {}, sessionId);
    await this.send('Log.enable', {}, sessionId);
    const { errorText } = await this.send('Page.navigate', { url }, sessionId);
    if (errorText) throw new Error(`Page.navigate ${url}: ${errorText}`);
    return {
      exceptions,
      errors,
      evaluate: async (expression) => {
        const { result, exceptionDetails } =
          await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
        if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
        return result.value;
      },
      close: () => this.send('Target.closeTarget', { targetId }),
    };
  }
}

/**
 * Starts `executable` headless with a fresh profile in a temporary directory and resolves with a DevTools
 * connection to it, once it printed its endpoint (within 20 s). When the test ends, the connection is closed,
 * the browser's whole process group is killed and the profile removed. With trustedCertificate (a PEM file), the
 * browser accepts the servers that present that certificate's key, as if a CA it trusts had signed it.
 */
async function launchChromium(t, executable, { trustedCertificate } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'loopwire-chromium-'));
  // The browser is not the code under test: under the sanitized test run (scripts/test-js-sanitized.js) it must
  // not inherit the AddressSanitizer runtime preloaded for node.
  const env = { ...process.env };
  for (const name of ['LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LOOPWIRE_ADDON_DIR']) delete env[name];
  const child = spawn(executable, ['--headless=new', '--no-sandbox', '--remote-debugging-port=0',
                                   `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check',
                                   '--disable-gpu', '--disable-extensions', '--disable-background-networking',
                                   ...(trustedCertificate ? [`--ignore-certificate-errors-spki-list=${
                                     spkiHash(trustedCertificate)}`] : []),
                                   'about:blank'],
                      { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env });
  // 'error' instead of 'exit' when it could not start at all.
  const exited = new Promise((resolve) => { child.once('exit', resolve); child.once('error', resolve); });
  t.after(async () => {
    // The launcher and the browser's helper processes share the group started here; SIGKILL ends them all at
    // once (the helpers, orphaned, are then reaped by init).
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  let stderr = '';
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools endpoint in 20 s:\n${stderr}`)),
                             20000);
    child.stderr.on('data', (chunk) => {
      // Keeps reading (the pipe must not fill up), but keeps only the last 8 KiB for error messages.
      stderr = (stderr + chunk).slice(-8192);
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`chromium exited (${code ?? signal}) before printing its DevTools endpoint:\n${stderr}`));
    });
  });

  const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  t.after(() => socket.terminate());
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return new DevTools(socket);
}

/** The base64 SHA-256 of the public key (SubjectPublicKeyInfo) of the PEM certificate in file, as Chromium pins it. */
function spkiHash(file) {
  const key = new crypto.X509Certificate(fs.readFileSync(file)).publicKey.export({ type: 'spki', format: 'der' });
  return crypto.createHash('sha256').update(key).digest('base64');
}

module.exports = { findChromium, launchChromium, waitFor };
