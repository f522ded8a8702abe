// The demo `npm start` runs: a small tour of the API on one port (default 3000).
//   /                 the landing page: a link to each part, and this server's counters live (over /stats/ws)
//   /hello            hello world
//   /users/:id        route parameters
//   /echo (POST)      the request body, collected with collectBody
//   /stream           a chunked response written over time
//   /declarative/:name  a DeclarativeResponse, answered without calling JavaScript
//   /chat             a chat page (?room=lobby&name=you): rooms over pub/sub, on the WebSocket /chat/ws
//   /stats            the counters, as JSON
//   /examples/js/<file>, /examples/cpp/<file>  the source of every example of the repository, each listed on /
//   /assets/<file>    the pages' style and scripts (demo_assets/), served by app.static with no JavaScript per request
// With REDIS_URL set (redis://127.0.0.1:6379), the chat's pub/sub is linked to that Redis, so that several demo
// processes share their rooms (examples/js/cluster_chat.js runs two); "online" counts this process's members. Each
// room then keeps its last CHAT_HISTORY_LINES lines in Redis (a day after the last one), which a page that joins
// gets first, and every line comes stamped with its position ("<epoch>:<offset>:<json>"), which the page reads to
// put each line once and in order.
// With TLS_KEY_FILE and TLS_CERT_FILE set (PEM files), it serves HTTPS instead, and browsers get HTTP/2 (ALPN h2);
// on plain HTTP it speaks HTTP/2 too, to clients that know it does (curl --http2-prior-knowledge).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);

// A room is a topic `room/<room>`: no '/' in it, so rooms do not nest. A name is any short printable text.
const ROOM = /^[\w-]{1,32}$/;
const NAME = /^(?=.*\S)[^\p{C}]{1,24}$/u;
const MAX_MESSAGE_BYTES = 4 * 1024;
// The pages are read once, at start. Their style and scripts are files of demo_assets/, served at /assets/ (below), so
// that PAGE_POLICY can refuse every inline script and style: text that a bug let into a page would not run.
const CHAT_PAGE = fs.readFileSync(path.join(__dirname, 'demo_chat.html'));
// Every example of the repository (examples/js/*.js, examples/cpp/*.cpp), read once: served as text at
// /examples/<folder>/<file>, and listed on the landing page with the first sentence of its leading comment.
const SUMMARY_CHARACTERS = 160;
const EXAMPLES = readExamples();
const HOME_PAGE = Buffer.from(fs.readFileSync(path.join(__dirname, 'demo_home.html'), 'utf8')
  .replace('<!-- examples -->', examplesList()));
// The pages may load their style and scripts from this origin (/assets/) and open their WebSockets (/stats/ws,
// /chat/ws) to it, connect-src 'self' covering ws: and wss:; nothing else, and nothing inline.
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'";
const ASSETS = path.join(__dirname, 'demo_assets');
// The assets' names carry no version, so a browser may keep them only briefly: a minute, after which it asks again
// with If-None-Match and gets a 304 while they are unchanged. An edited asset shows within a minute; `immutable` and
// a long max-age would want a content hash in every name.
const ASSET_MAX_AGE_SECONDS = 60;
// The landing page's counters are pushed to the topic STATS_TOPIC once a second, while anyone watches.
const STATS_TOPIC = 'stats';
const STATS_INTERVAL_MS = 1000;
// With Redis: the lines a room keeps, and for how long after its last one.
const CHAT_HISTORY_LINES = 50;
const CHAT_HISTORY_SECONDS = 24 * 60 * 60;

/** Maps "js/hello_world.js" and the like to { source: Buffer, summary }. */
function readExamples() {
  const examples = new Map();
  for (const [folder, extension] of [['js', '.js'], ['cpp', '.cpp']]) {
    const directory = path.join(__dirname, '..', folder);
    if (!fs.existsSync(directory)) continue;
    for (const file of fs.readdirSync(directory).filter((name) => name.endsWith(extension)).sort()) {
      const source = fs.readFileSync(path.join(directory, file));
      examples.set(`${folder}/${file}`, { source, summary: summaryOf(source.toString('utf8')) });
    }
  }
  return examples;
}

/** The first sentence of a source file's leading // comment, cut at a word past SUMMARY_CHARACTERS. */
function summaryOf(source) {
  const comment = [];
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break;
    comment.push(line.slice(2).trim());
  }
  const text = comment.join(' ');
  const end = text.search(/\.(\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end);
  if (sentence.length <= SUMMARY_CHARACTERS) return sentence;
  return `${sentence.slice(0, sentence.lastIndexOf(' ', SUMMARY_CHARACTERS))}\u2026`;
}

/** text with the characters HTML gives a meaning to escaped. */
function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

/** The landing page's list of examples: a link to each one's source, and what it shows. */
function examplesList() {
  return [...EXAMPLES].map(([name, { summary }]) =>
    `<li><a href="/examples/${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a>: ${escapeHtml(summary)}</li>`)
    .join('\n  ');
}

const tls = process.env.TLS_KEY_FILE && process.env.TLS_CERT_FILE
  ? { key_file_name: process.env.TLS_KEY_FILE, cert_file_name: process.env.TLS_CERT_FILE }
  : null;
const app = tls ? uWS.SSLApp({ ...tls, http2: true }) : uWS.App({ http2: true });
const linked = Boolean(process.env.REDIS_URL);
if (linked) {
  app.connectPubSub(process.env.REDIS_URL, {
    prefix: process.env.PUBSUB_PREFIX ?? 'loopwire-demo:',
    history: { size: CHAT_HISTORY_LINES, ttlSeconds: CHAT_HISTORY_SECONDS, topicPrefix: 'room/' },
    ready: () => console.log(`pub/sub linked to ${process.env.REDIS_URL}`),
    error: (error) => console.warn(`pub/sub: ${error.kind} ${error.code}: ${error.message}`),
  });
}

// What the landing page shows. HTTP requests are counted by the routes that run JavaScript (neither the declarative
// one nor /assets/ does); deliveries are this process's: each chat publish times the room's local members.
const counts = { requests: 0, messages: 0, deliveries: 0, connections: 0 };
let lastTick = { requests: 0, messages: 0, at: Date.now() };
/** Wraps a route handler so that it counts its requests. */
const counted = (handler) => (res, req) => {
  counts.requests++;
  return handler(res, req);
};

/** The counters: totals, and rates over the time since the last tick. */
function statistics() {
  const now = Date.now();
  const seconds = Math.max((now - lastTick.at) / 1000, 0.001);
  const pubsub = app.getPubSubStats();
  const stats = {
    connections: counts.connections,
    requestsPerSecond: Math.round((counts.requests - lastTick.requests) / seconds),
    messagesPerSecond: Math.round((counts.messages - lastTick.messages) / seconds),
    deliveries: counts.deliveries,
    link: linked ? pubsub.state : 'off',
    fromOthers: pubsub.delivered,
  };
  return { stats, tick: { requests: counts.requests, messages: counts.messages, at: now } };
}

setInterval(() => {
  const { stats, tick } = statistics();
  lastTick = tick;
  if (app.numSubscribers(STATS_TOPIC) > 0) app.publish(STATS_TOPIC, JSON.stringify(stats));
}, STATS_INTERVAL_MS).unref();

/** Sends {name, text, at} or {name, event, at, online} as JSON to everyone in the room, the sender included. */
function announce(room, message) {
  counts.deliveries += app.numSubscribers(`room/${room}`);
  app.publish(`room/${room}`, JSON.stringify({ ...message, at: Date.now() }), false, true);
}

app
  .get('/', counted((res) => {
    res.writeHeader('content-type', 'text/html; charset=utf-8').writeHeader('content-security-policy', PAGE_POLICY)
      .end(HOME_PAGE);
  }))
  .get('/hello', counted((res) => {
    res.writeHeader('content-type', 'text/plain').end('Hello from loopwire!\n');
  }))
  .get('/stats', counted((res) => {
    res.writeHeader('content-type', 'application/json').end(JSON.stringify(statistics().stats));
  }))
  .get('/users/:id', counted((res, req) => {
    res.writeHeader('content-type', 'application/json').end(JSON.stringify({ id: req.getParameter('id') }));
  }))
  .post('/echo', counted((res) => {
    res.onAborted(() => {});
    res.collectBody(1024 * 1024, (body) => {
      if (body === null) res.writeStatus('413 Payload Too Large').end();
      else res.end(body);
    });
  }))
  .get('/stream', counted((res) => {
    let aborted = false;
    res.onAborted(() => { aborted = true; });
    let count = 0;
    const timer = setInterval(() => {
      if (aborted) return clearInterval(timer);
      res.cork(() => {
        if (++count < 5) {
          res.write(`tick ${count}\n`);
        } else {
          clearInterval(timer);
          res.end('done\n');
        }
      });
    }, 100);
  }))
  .get('/declarative/:name', new uWS.DeclarativeResponse()
    .writeHeader('content-type', 'text/plain')
    .write('Hello, ')
    .writeParameterValue('name')
    .end('!\n'))
  .get('/examples/:folder/:file', counted((res, req) => {
    const example = EXAMPLES.get(`${req.getParameter('folder')}/${req.getParameter('file')}`);
    if (example === undefined) {
      res.writeStatus('404 Not Found').writeHeader('content-type', 'text/plain').end('no such example\n');
      return;
    }
    res.writeHeader('content-type', 'text/plain; charset=utf-8').end(example.source);
  }))
  .static('/assets', ASSETS, { maxAge: ASSET_MAX_AGE_SECONDS })
  .get('/chat', counted((res) => {
    res.writeHeader('content-type', 'text/html; charset=utf-8').writeHeader('content-security-policy', PAGE_POLICY)
      .end(CHAT_PAGE);
  }))
  .ws('/stats/ws', {
    open: (ws) => {
      counts.connections++;
      ws.subscribe(STATS_TOPIC);
      ws.send(JSON.stringify(statistics().stats));
    },
    close: () => { counts.connections--; },
  })
  .ws('/chat/ws', {
    compression: uWS.SHARED_COMPRESSOR | uWS.SHARED_DECOMPRESSOR,
    maxPayloadLength: MAX_MESSAGE_BYTES,
    upgrade: (res, req, context) => {
      const room = req.getQuery('room') ?? '';
      const name = req.getQuery('name') ?? '';
      if (!ROOM.test(room) || !NAME.test(name)) {
        res.writeStatus('400 Bad Request')
          .end('room: 1 to 32 letters, digits, _ or -; name: 1 to 24 printable characters\n');
        return;
      }
      res.upgrade({ room, name }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'),
                  req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      counts.connections++;
      ws.subscribe(`room/${ws.room}`);
      // Read after the subscription: nothing falls between the two, and a line in both is shown once.
      if (linked) {
        app.getHistory(`room/${ws.room}`, null, (error, history) => {
          if (error) console.warn(`chat history of ${ws.room}: ${error.code}: ${error.message}`);
          else if (!ws.closed) {
            const lines = history.messages.map((entry) => Buffer.from(entry.message).toString());
            ws.send(JSON.stringify({ event: 'history', lines }));
          }
        });
      }
      announce(ws.room, { name: ws.name, event: 'joined', online: app.numSubscribers(`room/${ws.room}`) });
    },
    message: (ws, message, isBinary) => {
      counts.messages++;
      if (isBinary) ws.end(1003, 'text only');
      else announce(ws.room, { name: ws.name, text: Buffer.from(message).toString() });
    },
    close: (ws) => {
      ws.closed = true;
      counts.connections--;
      // The ws can no longer publish here; the app can, and the closed ws is no longer among the subscribers.
      announce(ws.room, { name: ws.name, event: 'left', online: app.numSubscribers(`room/${ws.room}`) });
    },
  })
  .listen(port, (listenSocket) => {
    const origin = listenSocket && `${tls ? 'https' : 'http'}://localhost:${uWS.us_socket_local_port(listenSocket)}`;
    if (listenSocket) console.log(`loopwire demo listening on ${origin}`);
    else {
      console.error(`could not listen on port ${port}`);
      process.exitCode = 1;
    }
  });
