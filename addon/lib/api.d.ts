// The types of loopwire's API, the HTTP and WebSocket API of uWebSockets.js v20; index.d.ts exports them.
// See docs/node/guide.md, the pages beside it (App.md, HttpResponse.md, HttpRequest.md, WebSocket.md) and
// docs/differences.md.

/**
 * Bytes given to the server: a string (sent as UTF-8), an ArrayBuffer, a SharedArrayBuffer, or any
 * ArrayBufferView (Buffer, every TypedArray, DataView). undefined reads as empty.
 */
export type RecognizedString = string | ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/** The token app.listen hands to its callback; pass it to us_listen_socket_close or us_socket_local_port. */
export interface us_listen_socket {
    readonly __loopwireListenSocket?: never;
}

/** The `context` an upgrade handler receives, for res.upgrade. */
export interface us_socket_context_t {
    readonly __loopwireSocketContext?: never;
}

/**
 * One WebSocket connection, from `open` to `close`. From the moment its close handler runs (also inside it, and
 * after end() or close()) every method but getUserData throws an Error. The user data given to res.upgrade is
 * copied onto it: getUserData() returns the WebSocket itself.
 */
export type WebSocket<UserData> = UserData & {
    /** Sends a message (text unless isBinary). Returns 0 (backpressure: wait for drain), 1 (sent) or 2 (dropped). */
    send(message: RecognizedString, isBinary?: boolean, compress?: boolean): number;
    /** A message in fragments: first, any number of middle ones, last. Fragments are not compressed. */
    sendFirstFragment(message: RecognizedString, isBinary?: boolean, compress?: boolean): number;
    sendFragment(message: RecognizedString, compress?: boolean): number;
    sendLastFragment(message: RecognizedString, compress?: boolean): number;
    /** Sends a close frame with code and message; the close handler runs before this returns. */
    end(code?: number, shortMessage?: RecognizedString): void;
    /** Closes at once, without a close frame; the close handler runs (code 1006) before this returns. */
    close(): void;
    /** Sends a ping (at most 125 bytes). Returns the send status. */
    ping(message?: RecognizedString): number;
    subscribe(topic: RecognizedString): boolean;
    unsubscribe(topic: RecognizedString): boolean;
    isSubscribed(topic: RecognizedString): boolean;
    getTopics(): string[];
    /** Sends to every other subscriber of topic, after the current callbacks. Returns whether there is any. */
    publish(topic: RecognizedString, message: RecognizedString, isBinary?: boolean, compress?: boolean): boolean;
    /** Runs cb with the socket corked: what it sends leaves in one write. */
    cork(cb: () => void): WebSocket<UserData>;
    getBufferedAmount(): number;
    getRemoteAddress(): ArrayBuffer;
    getRemoteAddressAsText(): ArrayBuffer;
    getRemotePort(): number;
    /** The client the connection's PROXY protocol header named: 4 or 16 bytes; empty without one. */
    getProxiedRemoteAddress(): ArrayBuffer;
    /** That client's address as text ("203.0.113.7"); empty without one. */
    getProxiedRemoteAddressAsText(): ArrayBuffer;
    /** That client's port; 0 without one. */
    getProxiedRemotePort(): number;
    getUserData(): UserData;
};

/** What app.ws(pattern, behavior) does with the WebSockets of a route; every field is optional. */
export interface WebSocketBehavior<UserData> {
    /** Compressor and decompressor constants combined with |; DISABLED by default. */
    compression?: CompressOptions;
    /** The longest message accepted (after inflation): longer closes with 1009. 16 KiB by default. */
    maxPayloadLength?: number;
    /** Seconds without a frame from the peer before closing: 0, or 8 to 960 (120 by default). */
    idleTimeout?: number;
    /** Unsent bytes past which messages are dropped (64 KiB by default; 0: no limit). */
    maxBackpressure?: number;
    closeOnBackpressureLimit?: boolean;
    resetIdleTimeoutOnSend?: boolean;
    sendPingsAutomatically?: boolean;
    /** Minutes after which the connection is closed (0: never; at most 240). */
    maxLifetime?: number;
    /** Answers the upgrade request: res.upgrade(userData, key, protocol, extensions, context), or an HTTP refusal. */
    upgrade?: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => void | Promise<void>;
    open?: (ws: WebSocket<UserData>) => void | Promise<void>;
    /** The message is lent: its ArrayBuffer is detached when the handler returns (copy what you keep). */
    message?: (ws: WebSocket<UserData>, message: ArrayBuffer, isBinary: boolean) => void | Promise<void>;
    dropped?: (ws: WebSocket<UserData>, message: ArrayBuffer, isBinary: boolean) => void | Promise<void>;
    drain?: (ws: WebSocket<UserData>) => void;
    ping?: (ws: WebSocket<UserData>, message: ArrayBuffer) => void;
    pong?: (ws: WebSocket<UserData>, message: ArrayBuffer) => void;
    /** Runs once, last; the ws can no longer be used (only read). */
    close?: (ws: WebSocket<UserData>, code: number, message: ArrayBuffer) => void;
    subscription?: (ws: WebSocket<UserData>, topic: ArrayBuffer, newCount: number, oldCount: number) => void;
}

/**
 * Options of SSLApp() and addServerName(): PEM files as in uWebSockets.js, or PEM in memory (key, cert, ca).
 * A plain App accepts and ignores the TLS ones. Material that does not load makes SSLApp() throw an Error naming the
 * option.
 */
export interface AppOptions {
    key_file_name?: RecognizedString;
    cert_file_name?: RecognizedString;
    /** CA certificates: clients are asked for a certificate, and one that does not verify is refused. */
    ca_file_name?: RecognizedString;
    passphrase?: RecognizedString;
    dh_params_file_name?: RecognizedString;
    ssl_ciphers?: RecognizedString;
    /**
     * Key-exchange groups, an OpenSSL group list (beyond uWebSockets.js). Default: X25519 first, then the hybrid
     * post-quantum X25519MLKEM768 where Node's OpenSSL has it; `'X25519MLKEM768/X25519:secp256r1'` prefers the
     * hybrid group, at 6.6 KB more per connection.
     */
    ssl_groups?: RecognizedString;
    /** Frees each connection's TLS buffers while it is idle (SSL_MODE_RELEASE_BUFFERS). */
    ssl_prefer_low_memory_usage?: boolean;
    /** The private key, PEM, in memory (beyond uWebSockets.js). */
    key?: RecognizedString;
    /** The certificate chain, PEM, in memory. */
    cert?: RecognizedString;
    /** CA certificates, PEM, in memory. */
    ca?: RecognizedString;
    /**
     * The PROXY protocol header a TCP load balancer sends before a connection's first byte (beyond uWebSockets.js):
     * 'optional' (the default, as uWebSockets.js: read when a connection starts with one), 'required' (a
     * connection without one is closed) or 'off'. Read before the TLS handshake on an SSLApp.
     */
    proxy_protocol?: 'optional' | 'required' | 'off';
    /**
     * Only connections from these addresses or networks ('10.0.0.0/8', '2001:db8::/32', '192.0.2.7') may send a
     * PROXY header; one from elsewhere is closed. List the balancer: otherwise any client can claim any address.
     */
    proxy_trusted_sources?: string[];
    /**
     * HTTP/2 beside HTTP/1.1, with the same routes and handlers (beyond uWebSockets.js; off by default this release):
     * ALPN 'h2' on an SSLApp, prior knowledge on an App. What differs for handlers: docs/differences.md#http2.
     */
    http2?: boolean;
}

/** Options bits of app.listen. */
export const enum ListenOptions {
    LIBUS_LISTEN_DEFAULT = 0,
    LIBUS_LISTEN_EXCLUSIVE_PORT = 1,
}

/**
 * The response to one request. It can be used until it is complete (end, endWithoutBody, close, a tryEnd that
 * returned done) or aborted (onAborted ran); after that every method throws an Error. A handler that does not
 * complete the response before returning must call onAborted. Properties may be added to it freely.
 */
export interface HttpResponse {
    /** Writes the status line ("404 Not Found"); "200 OK" when never called. Call it before any header. */
    writeStatus(status: RecognizedString): HttpResponse;
    /** Writes a header. A name that is not a token, or CR, LF or NUL in the value, throws a TypeError. */
    writeHeader(key: RecognizedString, value: RecognizedString): HttpResponse;
    /** Sends a chunk of a chunked body. Returns false when bytes wait for the socket (backpressure). */
    write(chunk: RecognizedString): boolean;
    /** Completes the response with this body (Content-Length), or the last chunk after write(). */
    end(body?: RecognizedString, closeConnection?: boolean): HttpResponse;
    /** Completes the response without a body (HEAD, 304), announcing reportedContentLength when given. */
    endWithoutBody(reportedContentLength?: number | string, closeConnection?: boolean): HttpResponse;
    /**
     * Sends what the socket takes now of a body of totalSize bytes. Returns [ok, done]: ok when all of the chunk
     * was taken, done when the whole body has gone. When not ok, send the rest from onWritable. Bytes past
     * totalSize are not sent.
     */
    tryEnd(fullBodyOrChunk: RecognizedString, totalSize: number | string): [boolean, boolean];
    /**
     * Answers with the file at path in native code, as app.static answers with its files: type, validators,
     * conditional requests (304, 412), ranges (206, 416), an accepted precompressed or compressed variant, and the body
     * from memory or streamed as the socket drains. path is absolute, or relative to options.root (never leaving it).
     * No file there (a folder, a dotfile, a ".." segment): 404. The request's fields are read when it is called
     * while the handler runs; after an await the request is gone and the whole file goes out (200, not compressed),
     * unless options.requestHeaders carries copies of them. The status is its to choose: give fields of your own as
     * options.headers (it throws after a writeStatus or writeHeader). res is no longer usable afterwards; onAborted
     * still runs if the client leaves before a streamed file's end.
     */
    sendFile(path: string, options?: SendFileOptions): HttpResponse;
    /** Closes the connection at once; onAborted runs if the response was not complete. */
    close(): HttpResponse;
    /** Body bytes written so far. */
    getWriteOffset(): number;
    /** Called when the socket can take more; return true when done, or when you wrote what you could. */
    onWritable(handler: (offset: number) => boolean): HttpResponse;
    /** Called once if the response is aborted before it completes. Only the last handler given runs. */
    onAborted(handler: () => void): HttpResponse;
    /** The request body, chunk by chunk. chunk is detached after the call: copy it to keep it. */
    onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): HttpResponse;
    /**
     * The request body, chunk by chunk, with a bound on what remains (0n on the last call). chunk is detached
     * after the call: copy it to keep it.
     */
    onDataV2(handler: (chunk: ArrayBuffer, maxRemainingBodyLength: bigint) => void): HttpResponse;
    /**
     * Collects the whole request body and calls handler once with it, or with null when it exceeds maxSize
     * bytes. A body that arrived in one piece is lent (detached after the call); copy it to keep it.
     */
    collectBody(maxSize: number, handler: (fullBody: ArrayBuffer | null) => void): HttpResponse;
    /** Runs cb with the connection corked: everything written in it leaves in one system call. */
    cork(cb: () => void): HttpResponse;
    /**
     * Switches the connection to a WebSocket of the route whose upgrade handler received `context` (call it there,
     * or later after onAborted). userData's own properties are copied onto the WebSocket; the open handler runs
     * before this returns, and res can no longer be used.
     */
    upgrade<UserData>(userData: UserData, secWebSocketKey: RecognizedString, secWebSocketProtocol: RecognizedString,
                      secWebSocketExtensions: RecognizedString, context: us_socket_context_t): void;
    /** Stops reading the request (body) until resume(). */
    pause(): HttpResponse;
    /** Reads the request (body) again. */
    resume(): HttpResponse;
    /** The peer's address in binary: 4 bytes (IPv4) or 16 (IPv6). */
    getRemoteAddress(): ArrayBuffer;
    /** The peer's address as text. */
    getRemoteAddressAsText(): ArrayBuffer;
    /** The peer's port. */
    getRemotePort(): number;
    /** The certificate the client sent, PEM (new crypto.X509Certificate(pem)); undefined without one. */
    getX509Certificate(): string | undefined;
    /** The client a PROXY protocol header (version 1 or 2) named, 4 or 16 bytes; empty without one. */
    getProxiedRemoteAddress(): ArrayBuffer;
    /** That client's address as text ("203.0.113.7"); empty without one. */
    getProxiedRemoteAddressAsText(): ArrayBuffer;
    /** That client's port; 0 without one. */
    getProxiedRemotePort(): number;
    /** Arbitrary properties may be attached. */
    [key: string]: any;
}

/** The request being handled. Usable only while its handler runs, before any await. */
export interface HttpRequest {
    /** The value of the first header with this (lower-case) name, or "". */
    getHeader(lowerCaseKey: RecognizedString): string;
    /** A route parameter by position or by name (":name"), or "". */
    getParameter(index: number | RecognizedString): string;
    /** The path, without the query string. */
    getUrl(): string;
    /** The method in lower case ("get"). */
    getMethod(): string;
    /** The method as sent ("GET"). */
    getCaseSensitiveMethod(): string;
    /** The raw query string after '?', or undefined when the URL has none. */
    getQuery(): string | undefined;
    /** The decoded value of query parameter key ("" when it has no value), or undefined when absent. */
    getQuery(key: RecognizedString): string | undefined;
    /** Calls cb for every header, in order. */
    forEach(cb: (key: string, value: string) => void): void;
    /** true declines the request: the next matching route gets it. */
    setYield(yield_: boolean): HttpRequest;
}

/** A route handler: a function, or a program built by DeclarativeResponse. */
export type RouteHandler = ((res: HttpResponse, req: HttpRequest) => void | Promise<void>) | ArrayBuffer;

/** An HTTP server on Node's event loop. */
/** app.close's options. */
export interface CloseOptions {
    /** How long connections may take to end on their own before they are closed (0, the default: now). */
    drainMs?: number;
}

export interface TemplatedApp {
    /** Listens on host:port; cb runs before listen returns, with a listen socket or false. */
    listen(host: RecognizedString, port: number, cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
    listen(host: RecognizedString, port: number, options: ListenOptions | number,
           cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
    /** Listens on every address; port 0 picks a free port (us_socket_local_port tells which). */
    listen(port: number, cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
    listen(port: number, options: ListenOptions | number,
           cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
    /** Listens on a Unix socket at path. */
    listen_unix(cb: (listenSocket: us_listen_socket | false) => void | Promise<void>, path: RecognizedString): TemplatedApp;
    /** Routes. A handler of null removes the route. */
    get(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    post(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    put(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    del(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    patch(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    options(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    head(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    connect(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    trace(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    /** Every method. */
    any(pattern: RecognizedString, handler: RouteHandler | null): TemplatedApp;
    /** A WebSocket route (GET requests that ask for a WebSocket; others go to the next route). */
    ws<UserData>(pattern: RecognizedString, behavior: WebSocketBehavior<UserData>): TemplatedApp;
    /** Sends to every subscriber of topic, after the current callbacks. Returns whether it has any. */
    publish(topic: RecognizedString, message: RecognizedString, isBinary?: boolean, compress?: boolean): boolean;
    /** The number of WebSockets of this App subscribed to topic (not those of other Apps of a cluster). */
    numSubscribers(topic: RecognizedString): number;
    /**
     * Pub/sub across processes and machines (docs/node/pubsub-cluster.md): from now on every publish of this App
     * (app.publish, ws.publish) also goes to the Redis server at url (redis://[[user]:password@]host[:port], or
     * several hosts separated by commas, tried in turn; rediss:// for TLS), and
     * what other Apps connected with the same prefix publish reaches this App's subscribers. Connects in the
     * background and reconnects on its own; a url that is not a redis:// or rediss:// URL throws a TypeError.
     * Replaces an earlier connection; app.close() ends it.
     */
    connectPubSub(url: string, options?: PubSubOptions): TemplatedApp;
    /**
     * Serves the folder rootDirectory under urlPrefix ("/", "/assets"), in native code with no JavaScript per request
     * (docs/static-files.md): GET and HEAD, conditional requests (ETag, Last-Modified: 304, 412), ranges (206,
     * multipart/byteranges, 416), a folder's index file, a cache of small files checked against the disk once a
     * second; never a file outside the folder (symbolic links included) nor, by default, a dotfile. Other methods get
     * 405. An app route of the same pattern added before or after runs when the folder has no file for a request
     * (with fallthrough). A bad argument throws a TypeError or RangeError; a folder that cannot be opened an Error.
     */
    static(urlPrefix: string, rootDirectory: string, options?: StaticOptions): TemplatedApp;
    /**
     * Codes the responses to requests whose path matches pattern (a route pattern, any method) with zstd, brotli or
     * gzip, as the request's Accept-Encoding weighs them: bodies given to end() (from options.minBytes), tryEnd() (by
     * its totalSize) and write() (streamed, each write flushed), of a compressible Content-Type the handler wrote,
     * unless it wrote its own Content-Encoding or Content-Length, answers a HEAD, or sends a 206 or a bodyless status.
     * Adds Vary: Accept-Encoding, and makes a strong ETag weak. The first matching rule, in route order, decides. A
     * bad argument throws a TypeError or RangeError; a malformed pattern, or one with a rule already, an Error.
     */
    compress(pattern: string, options?: ResponseCompressionOptions): TemplatedApp;
    /** Ends the link to Redis (queued publishes are dropped); local pub/sub goes on. */
    disconnectPubSub(): TemplatedApp;
    /** The link's state and counters (state "closed" and zeros when not connected). */
    getPubSubStats(): PubSubStats;
    /**
     * Reads topic's history (the history option of connectPubSub): the messages published after since (null: the
     * whole history of the current epoch), for a client that comes back from there. callback is called once, with
     * an Error (its code: "NOHISTORY", "ETIMEDOUT" after 10 s, "DISCONNECTED" when disconnectPubSub or
     * connectPubSub ended the link first, or Redis's) or with null and the result. Throws
     * an Error with code "NOT_CONNECTED" when pub/sub is not connected.
     */
    getHistory(topic: string, since: PubSubPosition | null | undefined,
        callback: (error: PubSubError | null, result?: PubSubHistory) => void): TemplatedApp;
    /** Stops listening and closes every connection (pending responses are aborted). */
    close(): TemplatedApp;
    /**
     * Graceful shutdown: stops listening now, closes idle keep-alive connections, lets requests in progress finish
     * (their responses say Connection: close), closes WebSockets with 1001, and after drainMs closes what is left as
     * close() does. callback runs once every connection has ended (also when drainMs is 0).
     */
    close(options: CloseOptions | undefined, callback?: () => void): TemplatedApp;
    /** close() with a callback that runs once every connection is closed, as node:http's close takes one. */
    close(callback: () => void): TemplatedApp;
    /**
     * Server names (SNI) of an SSLApp: a host name, or "*." and a domain (one label deep), with its own key and
     * certificate. missingServerName's callback runs during a handshake for a name nothing covers and may add it
     * for that handshake. domain(serverName) makes the routes added after it that name's own (domain('') goes
     * back to the App's). A plain App accepts these and changes nothing.
     */
    addServerName(hostnamePattern: RecognizedString, options?: AppOptions): TemplatedApp;
    removeServerName(hostnamePattern: RecognizedString): TemplatedApp;
    missingServerName(cb: (hostname: string) => void): TemplatedApp;
    domain(serverName: RecognizedString): TemplatedApp;
    /**
     * This App's descriptor, for addChildAppDescriptor on an App of another thread (send it with postMessage).
     * From then on the App serves the connections acceptors hand it, and keeps its thread alive until close().
     */
    getDescriptor(): AppDescriptor;
    /**
     * Deals the connections this App's listeners accept to its children in turn: each is served by the child's
     * App, on the child's thread. A number getDescriptor() never returned throws a RangeError; a child that has
     * ended is skipped.
     */
    addChildAppDescriptor(descriptor: AppDescriptor): TemplatedApp;
    /** Stops dealing connections to that child. */
    removeChildAppDescriptor(descriptor: AppDescriptor): TemplatedApp;
    /**
     * Serves fd, a connected stream socket accepted elsewhere, as if this App had accepted it; the App owns fd
     * from then on. ip is accepted for compatibility: the peer's address is read from the socket.
     */
    adoptSocket(fd: number, ip?: RecognizedString): TemplatedApp;
}

/** Options of app.static. */
export interface StaticOptions {
    /** The file a folder's URL with its trailing slash serves; false: none. Default "index.html". Never a listing. */
    index?: string | false;
    /** Files and folders whose name starts with ".": "deny" (404, the default) or "allow". /.well-known/ is served. */
    dotfiles?: 'deny' | 'allow';
    /**
     * Cache-Control: public, max-age=<maxAge>[, immutable] when either is set; none by default. In seconds, the
     * header's own unit (express.static's maxAge is in milliseconds).
     */
    maxAge?: number;
    immutable?: boolean;
    /**
     * Serve file.br, file.zst or file.gz beside a file to the requests that accept that coding (Content-Encoding,
     * Vary: Accept-Encoding, the variant's own ETag), from memory up to 256 KiB and streamed from their file beyond;
     * never to a Range request. Default true.
     */
    precompressed?: boolean;
    /**
     * Compress files of compressible types (256 bytes to 4 MiB) once, in the background, with brotli, zstd and gzip
     * at their highest levels, for the codings no precompressed variant provides; the variants are kept in memory.
     * Default true.
     */
    compress?: boolean;
    /**
     * Files larger than the cache go by sendfile(2) on plain TCP (default true). A file rewritten in place (not
     * renamed over) during a download may then reach that client mixed; false copies instead, and cuts it short.
     */
    sendfile?: boolean;
    /** Send ETag and Last-Modified (and answer the conditional requests that use them). Default true. */
    etag?: boolean;
    lastModified?: boolean;
    /** Bytes of small files kept in memory (files up to 256 KiB); 0 keeps none. Default 64 MiB. */
    cacheBytes?: number;
    /** Media types by extension ({ md: 'text/markdown; charset=utf-8' }), added to or replacing the built-in ones. */
    mimeTypes?: Record<string, string>;
    /**
     * A request the folder has no file for goes on to the next matching route (an SPA's fallback, a custom 404)
     * instead of getting 404. Default false.
     */
    fallthrough?: boolean;
}

/**
 * Options of app.compress (named apart from CompressOptions, the WebSocket compression flags of uWebSockets.js).
 * Levels are measured for responses coded on every request (docs/compression.md).
 */
export interface ResponseCompressionOptions {
    /** The codings offered, the server's preference first on a tie of the client's weights. Default ['zstd', 'br', 'gzip']; one this Node cannot make (zstd before 22.15) is left out. */
    codings?: Array<'br' | 'zstd' | 'gzip'>;
    /** Bodies shorter than this go out as they are (end, tryEnd); write() bodies are coded whatever their length. Default 1024. */
    minBytes?: number;
    /** gzip 1-9, default 4. */
    gzipLevel?: number;
    /** brotli 0-11, default 4. */
    brotliLevel?: number;
    /** zstd 1-19, default 3. */
    zstdLevel?: number;
}

/**
 * Options of res.sendFile: those of app.static that apply to one file (the same defaults), a root, and the request's
 * fields copied before an await. Calls with the same options share one cache; an App keeps at most 16 different
 * ones (a 17th throws): make the options object once, not per request.
 */
export interface SendFileOptions extends Omit<StaticOptions, 'index' | 'fallthrough'> {
    /** The folder path is relative to; never left, links out of it refused. Without it, path must be absolute. */
    root?: string;
    /**
     * Copies of the request's If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range, Range and
     * Accept-Encoding fields (names in any case), taken before an await: read instead of the request's own.
     */
    requestHeaders?: Record<string, string>;
    /**
     * Fields the answer carries besides its own (Content-Disposition...), after the status of a 200, 206 or 304. The
     * way to add fields: a writeHeader before sendFile fixes the status at 200, and sendFile then throws.
     */
    headers?: Record<string, string>;
}

/** Options of app.connectPubSub. Delays and intervals are in milliseconds. */
export interface PubSubOptions {
    /**
     * rediss:// (TLS): the CA file (PEM) the server's certificate must chain to (default: the system's store); the
     * certificate must also name the URL's host. tlsVerify: false accepts any certificate (tests only).
     */
    tlsCaFile?: string;
    tlsVerify?: boolean;
    /** Every channel is prefix + topic, so that applications sharing a Redis stay apart. Default "loopwire:". */
    prefix?: string;
    /**
     * Sharded pub/sub (Redis 7, SSUBSCRIBE/SPUBLISH): on a Redis Cluster each topic lives on the master that owns its
     * channel's slot, instead of every node carrying every message; the App links to every master, follows the
     * slot map as slots move, and the URL needs to name only some nodes. Works on a standalone Redis 7 too. Every
     * App on the same prefix must use the same mode. Default false.
     */
    sharded?: boolean;
    /** Bytes of publishes that may wait while Redis is away or slow; past it they are dropped. Default 8 MiB. */
    maxQueuedBytes?: number;
    /** The first reconnection delay, doubled per failure up to reconnectMaxDelay, jittered. Defaults 100, 5000. */
    reconnectMinDelay?: number;
    reconnectMaxDelay?: number;
    /** A connection attempt (lookup, connect, handshake) that takes longer fails. Default 5000. */
    connectTimeout?: number;
    /** A silent connection is pinged after this long and dropped after twice as long. Default 5000. */
    pingInterval?: number;
    /**
     * History and recovery: the topics that start with topicPrefix (default: every topic) keep their last size
     * messages (1 to 1,000,000) in a Redis Stream, for ttlSeconds after their last publish (default 0: until Redis
     * evicts them). Their messages reach every App's subscribers, this App's included and the ws that published
     * included, once Redis has numbered them, stamped with their position: "<epoch>:<offset>:" before the message.
     */
    history?: { size: number; ttlSeconds?: number; topicPrefix?: string };
    /** Called each time the link is (again) connected, subscribed and sending what was queued. */
    ready?: () => void;
    /** Called when an attempt fails, the link breaks or publishes are dropped (printed to stderr when absent). */
    error?: (error: PubSubError) => void;
}

/** What the error callback of app.connectPubSub receives. */
export interface PubSubError extends Error {
    /** "ECONNREFUSED", "ETIMEDOUT", "EAI_NONAME", "WRONGPASS", "NOAUTH", "PROTOCOL", "QUEUE_FULL", "CLOSED"... */
    code: string;
    /** "error": an attempt failed or Redis refused a command; "disconnected": the link broke (it reconnects);
     * "dropped": publishes are being dropped because the queue is full. */
    kind: 'error' | 'disconnected' | 'dropped';
}

/** Where a client was in a topic's history: the epoch of the history and the offset of the last message it had. */
export interface PubSubPosition {
    epoch: string;
    offset: number;
}

/** What app.getHistory gives its callback. */
export interface PubSubHistory {
    /** The topic's position now ("" and 0 when it has no history yet). */
    epoch: string;
    offset: number;
    /**
     * True when messages is everything published after since; false when the history no longer covers it (another
     * epoch, or trimmed): the client must start again from this position.
     */
    recovered: boolean;
    /** Stamped as WebSockets are sent them. */
    messages: { message: ArrayBuffer; isBinary: boolean; offset: number }[];
}

/** What app.getPubSubStats() returns. */
export interface PubSubStats {
    state: 'connecting' | 'ready' | 'disconnected' | 'closed';
    /** Messages written to Redis. */
    published: number;
    /** Messages from other Apps given to this App's subscribers. */
    delivered: number;
    /** Publishes dropped because the queue was full. */
    dropped: number;
    /** Connections made after the first one. */
    reconnects: number;
    /** Failed attempts and error replies. */
    errors: number;
    /** Publishes waiting for Redis, and their bytes. */
    queuedMessages: number;
    queuedBytes: number;
}

/**
 * What app.getDescriptor() returns: a number naming an App of this process, which crosses threads by
 * postMessage.
 */
export type AppDescriptor = number;

/** Creates an App. */
export function App(options?: AppOptions): TemplatedApp;

/** Creates an App that speaks HTTPS and WSS (TLS 1.2 and 1.3, with Node's own OpenSSL). */
export function SSLApp(options: AppOptions): TemplatedApp;

/** Stops listening on a listen socket; connections already accepted stay open. */
export function us_listen_socket_close(listenSocket: us_listen_socket): void;

/** The port a listen socket listens on, or -1 once it is closed. */
export function us_socket_local_port(listenSocket: us_listen_socket): number;

/** The options bit that refuses to share the port (no SO_REUSEPORT). */
export const LIBUS_LISTEN_EXCLUSIVE_PORT: number;

/**
 * Compression options of a WebSocket behaviour, with uWebSockets.js v20's values: a compressor (low byte) and a
 * decompressor (bits 8-11) combined with |.
 */
export type CompressOptions = number;
export const DISABLED: CompressOptions;
export const SHARED_COMPRESSOR: CompressOptions;
export const SHARED_DECOMPRESSOR: CompressOptions;
export const DEDICATED_COMPRESSOR_3KB: CompressOptions;
export const DEDICATED_COMPRESSOR_4KB: CompressOptions;
export const DEDICATED_COMPRESSOR_8KB: CompressOptions;
export const DEDICATED_COMPRESSOR_16KB: CompressOptions;
export const DEDICATED_COMPRESSOR_32KB: CompressOptions;
export const DEDICATED_COMPRESSOR_64KB: CompressOptions;
export const DEDICATED_COMPRESSOR_128KB: CompressOptions;
export const DEDICATED_COMPRESSOR_256KB: CompressOptions;
export const DEDICATED_COMPRESSOR: CompressOptions;
export const DEDICATED_DECOMPRESSOR_512B: CompressOptions;
export const DEDICATED_DECOMPRESSOR_1KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR_2KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR_4KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR_8KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR_16KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR_32KB: CompressOptions;
export const DEDICATED_DECOMPRESSOR: CompressOptions;

/** One part of a multipart body. */
export interface MultipartField {
    data: ArrayBuffer;
    name: string;
    type?: string;
    filename?: string;
}

/** The parts of a multipart body, or undefined when contentType is not multipart. */
export function getParts(body: RecognizedString, contentType: RecognizedString): MultipartField[] | undefined;

/** A response answered natively for every request; end() returns the program to give to a route. */
export class DeclarativeResponse {
    writeStatus(status: RecognizedString): DeclarativeResponse;
    writeHeader(key: RecognizedString, value: RecognizedString): DeclarativeResponse;
    writeBody(): DeclarativeResponse;
    writeQueryValue(key: RecognizedString): DeclarativeResponse;
    writeHeaderValue(key: RecognizedString): DeclarativeResponse;
    writeParameterValue(key: RecognizedString): DeclarativeResponse;
    write(value: RecognizedString): DeclarativeResponse;
    end(value?: RecognizedString): ArrayBuffer;
}

