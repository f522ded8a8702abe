// The demo's chat as a cluster: two demo processes (examples/js/demo.js) on two ports, their pub/sub linked to one
// Redis, so that a message typed in a browser on one port appears in a browser on the other.
//   REDIS_URL=redis://127.0.0.1:6379 PORT=3000 node examples/js/cluster_chat.js
//   then open http://localhost:3000/chat?room=lobby&name=ann and http://localhost:3001/chat?room=lobby&name=bob
// PORT=0 gives each process a free port. Each prints "listening on <port>"; Ctrl-C stops both.
'use strict';
const path = require('node:path');
const { spawn } = require('node:child_process');

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const port = Number(process.env.PORT ?? 3000);
const demo = path.join(__dirname, 'demo.js');

const children = [0, 1].map((index) => {
  const child = spawn(process.execPath, [demo], {
    env: { ...process.env, REDIS_URL: redisUrl, PORT: String(port === 0 ? 0 : port + index) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    for (const line of text.split('\n')) {
      const listening = /listening on http:\/\/localhost:(\d+)/.exec(line);
      if (listening) console.log(`chat process ${index + 1} listening on ${listening[1]}`);
      else if (line) console.log(`chat process ${index + 1}: ${line}`);
    }
  });
  child.on('exit', (code) => {
    console.log(`chat process ${index + 1} exited (${code})`);
    process.exitCode = code ?? 1;
    for (const other of children) other.kill();
  });
  return child;
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => { for (const child of children) child.kill(); });
}
