// A typed program against loopwire's index.d.ts; types.test.js checks it with tsc --noEmit.
import {
  App,
  AppDescriptor,
  CloseOptions,
  CompressOptions,
  DEDICATED_DECOMPRESSOR,
  DeclarativeResponse,
  HttpRequest,
  HttpResponse,
  LIBUS_LISTEN_EXCLUSIVE_PORT,
  ListenOptions,
  MultipartField,
  RecognizedString,
  SHARED_COMPRESSOR,
  TemplatedApp,
  WebSocket,
  WebSocketBehavior,
  getParts,
  us_listen_socket,
  us_listen_socket_close,
  us_socket_local_port,
} from 'loopwire';
// Issue 18: the default import, as uWebSockets.js users write it, with no esModuleInterop in tsconfig.json.
import uWS from 'loopwire';

const greeting: RecognizedString = new Uint8Array([104, 105]);

const app: TemplatedApp = App({ proxy_protocol: 'optional', proxy_trusted_sources: ['10.0.0.0/8'] })
  .get('/hello/:name', (res: HttpResponse, req: HttpRequest) => {
    const name: string = req.getParameter('name');
    const first: string = req.getParameter(0);
    const query: string | undefined = req.getQuery('q');
    const raw: string | undefined = req.getQuery();
    req.forEach((key: string, value: string) => void (key + value));
    res.writeStatus('200 OK').writeHeader('x-name', name).writeHeader('x-first', first);
    res.end(`${query ?? ''}${raw ?? ''}`, false);
  })
  .post('/upload', (res, req) => {
    const contentType = req.getHeader('content-type');
    res.onAborted(() => {});
    res.collectBody(1 << 20, (body: ArrayBuffer | null) => {
      const parts: MultipartField[] | undefined = body ? getParts(body, contentType) : undefined;
      res.cork(() => res.end(String(parts?.length ?? 0)));
    });
  })
  .put('/stream', (res) => {
    res.onAborted(() => {});
    res.onData((chunk: ArrayBuffer, isLast: boolean) => { if (isLast) res.end(chunk); });
    res.onDataV2((chunk: ArrayBuffer, remaining: bigint) => void (chunk.byteLength + Number(remaining)));
  })
  .get('/big', (res) => {
    res.onAborted(() => {});
    const body = new Uint8Array(1 << 20);
    res.onWritable((offset: number): boolean => res.tryEnd(body.subarray(offset - 0), body.length)[0]);
    const [ok, done]: [boolean, boolean] = res.tryEnd(body, body.length);
    if (!ok && !done) res.pause().resume();
    const port: number = res.getRemotePort() + res.getProxiedRemotePort() + res.getWriteOffset();
    const address: ArrayBuffer[] = [res.getRemoteAddress(), res.getRemoteAddressAsText(),
      res.getProxiedRemoteAddress(), res.getProxiedRemoteAddressAsText()];
    res.userData = { port, address };
  })
  .del('/x', null)
  .patch('/x', (res) => { res.endWithoutBody(0, true); })
  .options('/x', (res) => { res.write(greeting); res.end(); })
  .head('/x', (res) => { res.close(); })
  .connect('/x', (res) => { res.end(); })
  .trace('/x', (res, req) => { req.setYield(true); res.end(); })
  .any('/declarative', new DeclarativeResponse().writeHeader('a', 'b').writeQueryValue('q').end('!'))
  .get('/async', async (res) => {
    res.onAborted(() => {});
    await Promise.resolve();
    res.cork(() => res.end('later'));
  });

app.listen(0, LIBUS_LISTEN_EXCLUSIVE_PORT, (token: us_listen_socket | false) => {
  if (token) {
    const port: number = us_socket_local_port(token);
    us_listen_socket_close(token);
    void port;
  }
});
app.listen('127.0.0.1', 0, ListenOptions.LIBUS_LISTEN_DEFAULT, () => {});
app.listen('127.0.0.1', 0, () => {});
app.listen(0, () => {});
app.listen_unix(() => {}, '/tmp/loopwire.sock');
app.close();
let drained = false;
app.close({ drainMs: 10_000 }, () => { drained = true; });
void drained;
const closeOptions: CloseOptions = {};
app.close(closeOptions);
// What hyper-express does in its constructor, and the SNI calls of uWebSockets.js.
app.missingServerName((hostname: string) => { void hostname; })
  .addServerName('example.com', { key_file_name: 'key.pem', cert_file_name: 'cert.pem' })
  .removeServerName('example.com')
  .domain('example.com');

// Several threads: a worker's App hands its descriptor to the acceptor, or a socket is adopted.
const child: TemplatedApp = App();
const descriptor: AppDescriptor = child.getDescriptor();
app.addChildAppDescriptor(descriptor).removeChildAppDescriptor(descriptor).adoptSocket(3, '127.0.0.1');
child.adoptSocket(4).close();

const compression: CompressOptions = SHARED_COMPRESSOR | DEDICATED_DECOMPRESSOR;
void compression;

// A WebSocket route with typed user data.
interface PerSocket {
  room: string;
}
const chat: WebSocketBehavior<PerSocket> = {
  compression: SHARED_COMPRESSOR,
  maxPayloadLength: 64 * 1024,
  idleTimeout: 32,
  upgrade: (res: HttpResponse, req: HttpRequest, context) => {
    res.upgrade<PerSocket>({ room: req.getQuery('room') ?? 'lobby' }, req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },
  open: (ws: WebSocket<PerSocket>) => {
    ws.subscribe(ws.room);
    const client: ArrayBuffer = ws.getProxiedRemoteAddressAsText();
    void (client.byteLength + ws.getProxiedRemotePort() + ws.getProxiedRemoteAddress().byteLength);
  },
  message: (ws, message: ArrayBuffer, isBinary: boolean) => {
    const status: number = ws.send(message, isBinary);
    const delivered: boolean = ws.publish(ws.getUserData().room, message, isBinary);
    void status;
    void delivered;
  },
  close: (ws, code: number, message: ArrayBuffer) => {
    void code;
    void message.byteLength;
  },
};
const wsApp: TemplatedApp = App().ws<PerSocket>('/chat', chat);
const subscribers: number = wsApp.numSubscribers('lobby');
const published: boolean = wsApp.publish('lobby', 'hello', false, true);
void subscribers;
void published;

// Pub/sub across processes, sharded on a Redis Cluster.
const linked: TemplatedApp = wsApp.connectPubSub('redis://10.0.0.1:7000,10.0.0.2:7000', {
  sharded: true,
  prefix: 'chat:',
  error: (error) => { const why: string = `${error.kind} ${error.code}`; void why; },
});
const state: 'connecting' | 'ready' | 'disconnected' | 'closed' = linked.getPubSubStats().state;
void state;
const withHistory: TemplatedApp = wsApp.connectPubSub('redis://127.0.0.1', {
  history: { size: 100, ttlSeconds: 300, topicPrefix: 'room/' },
});
withHistory.getHistory('room/1', { epoch: 'e', offset: 4 }, (error, result) => {
  if (error !== null) { const code: string = error.code; void code; return; }
  if (result !== undefined && result.recovered) {
    for (const missed of result.messages) { const bytes: ArrayBuffer = missed.message; void bytes; }
  }
});
linked.disconnectPubSub();

// Static files, with an SPA's fallback behind them.
const site: TemplatedApp = App()
  .static('/', './public', { maxAge: 3600, immutable: false, dotfiles: 'deny', fallthrough: true, precompressed: true, compress: true,
                             mimeTypes: { md: 'text/markdown; charset=utf-8' }, index: false, cacheBytes: 1 << 20 })
  .get('/*', (res) => { res.end('spa'); });
void site;

// Responses coded on the fly.
const compressionOptions: uWS.ResponseCompressionOptions = { codings: ['zstd', 'gzip'] };
void compressionOptions;
const compressing: TemplatedApp = App()
  .compress('/api/*', { codings: ['zstd', 'gzip'], minBytes: 512, gzipLevel: 6, brotliLevel: 4, zstdLevel: 3 })
  .get('/api/items', (res) => { res.writeHeader('content-type', 'application/json').end('[]'); });
void compressing;

// One file from a handler, after an await with the request's fields copied.
const downloadOptions: uWS.SendFileOptions = { root: './private', maxAge: 60, dotfiles: 'deny', sendfile: true };
App().get('/download/:name', async (res, req) => {
  const name: string = req.getParameter(0) ?? '';
  const requestHeaders: Record<string, string> = { range: req.getHeader('range') };
  res.onAborted(() => {});
  await Promise.resolve();
  const headers: Record<string, string> = { 'Content-Disposition': 'attachment' };
  const same: HttpResponse = res.sendFile(name, { ...downloadOptions, requestHeaders, headers });
  void same;
});

const viaDefault: uWS.TemplatedApp = uWS.App();
viaDefault.close();
