// A feed that a client can leave and come back to without missing a tick: the topic keeps its last 1,000 messages
// in Redis (connectPubSub's history option), each tick reaches clients stamped "<epoch>:<offset>:", and a client
// that reconnects with ?since=<epoch>:<offset> (the stamp of the last tick it had) is first sent what it missed,
// or {"reload":true,...} when the history no longer covers it. Run it on several ports against one Redis: a client
// can come back to any of them.
//   REDIS_URL=redis://127.0.0.1:6379 PORT=3000 node examples/js/recovering_feed.js
//   then connect a WebSocket client to ws://localhost:3000/feed, and later to ws://localhost:3000/feed?since=...
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOPIC = 'feed/ticks';
const SINCE = /^([0-9a-f]{1,32}):(\d{1,15})$/;

const app = uWS.App();
app.connectPubSub(redisUrl, {
  prefix: 'recovering-feed:',
  history: { size: 1000, ttlSeconds: 3600 },
  error: (err) => console.error(`pub/sub: ${err.kind} ${err.code}: ${err.message}`),
});

app.ws('/feed', {
  upgrade: (res, req, context) => {
    const since = SINCE.exec(req.getQuery('since') ?? '');
    res.upgrade({ since: since ? { epoch: since[1], offset: Number(since[2]) } : null },
                req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'),
                req.getHeader('sec-websocket-extensions'), context);
  },
  open: (ws) => {
    // Subscribed first, then read: nothing falls between the two. A tick may come twice, and ticks published while
    // the read is on its way come live before the missed ones it brings: the client keeps every stamp it has not
    // seen, by its offset.
    ws.subscribe(TOPIC);
    if (ws.since === null) return;
    app.getHistory(TOPIC, ws.since, (error, result) => {
      if (ws.closed) return;
      if (error) {
        ws.send(JSON.stringify({ error: error.code }));
      } else if (!result.recovered) {
        ws.send(JSON.stringify({ reload: true, epoch: result.epoch, offset: result.offset }));
      } else {
        ws.cork(() => { for (const missed of result.messages) ws.send(missed.message, missed.isBinary); });
      }
    });
  },
  close: (ws) => { ws.closed = true; },
});

let tick = 0;
setInterval(() => app.publish(TOPIC, `tick ${++tick} from port ${port}`), 50).unref();

app.listen(port, (listenSocket) => {
  if (!listenSocket) {
    console.error(`cannot listen on port ${port}`);
    process.exit(1);
  }
  console.log(`listening on port ${uWS.us_socket_local_port(listenSocket)}`);
});
