'use strict';
// Starts a JS example of examples/js/ in a child node process, as `npm start` would, on a free port.

const { spawn } = require('node:child_process');
const path = require('node:path');

const examples = path.resolve(__dirname, '..', '..', '..', 'examples', 'js');

/**
 * Starts examples/js/<name> with PORT=0 (and env's variables) and resolves with { child, port, output() } once it
 * printed its port (within 10 s); the child is killed when the test ends.
 */
function startExample(t, name, env = {}) {
  const child = spawn(process.execPath, [path.join(examples, name)], { env: { ...process.env, PORT: '0', ...env } });
  t.after(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${output}`)), 10000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /(?:port |localhost:|listening on )(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]), output: () => output });
      }
    });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
  });
}

/**
 * Starts examples/js/cluster_chat.js (two demo processes) linked to redisUrl, each on a free port, and resolves
 * with their two ports once both listen and are linked (within 10 s); the launcher is stopped when the test ends.
 */
function startClusterChat(t, redisUrl) {
  const child = spawn(process.execPath, [path.join(examples, 'cluster_chat.js')],
    { env: { ...process.env, PORT: '0', REDIS_URL: redisUrl } });
  t.after(() => child.kill('SIGTERM'));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster_chat.js did not start: ${output}`)), 10000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = [...output.matchAll(/listening on (\d+)/g)].map((match) => Number(match[1]));
      if (found.length === 2 && (output.match(/pub\/sub linked/g) ?? []).length === 2) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
}

module.exports = { startExample, startClusterChat };
