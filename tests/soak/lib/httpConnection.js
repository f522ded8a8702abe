'use strict';
// A verifying client's connection: writes requests and hands out the responses in order, each awaited with an
// inactivity limit (no byte for ANSWER_IDLE_LIMIT_MS while an answer is awaited is a missing answer).

const { ResponseParser } = require('./responseParser.js');
const { closedPromise, closeReason } = require('./socketRegistry.js');

const ANSWER_IDLE_LIMIT_MS = 10_000;

class HttpConnection {
  /** Opens a connection through the session's SocketRegistry. */
  static async open(sockets, port) {
    return new HttpConnection(await sockets.connect(port));
  }

  constructor(socket) {
    this.socket = socket;
    this.closed = closedPromise(socket);
    this.responses = [];
    this.waiters = [];
    this.endError = null;
    this.lastByteAt = Date.now();
    this.parser = new ResponseParser((response) => this.deliver(response));
    socket.on('data', (bytes) => {
      this.lastByteAt = Date.now();
      try {
        this.parser.push(bytes);
      } catch (error) {
        this.end(error);
        socket.destroy();
      }
    });
    socket.once('close', () => this.end(new Error(`connection ${closeReason(socket)}`)));
  }

  /** Responses received that nobody has asked for yet. */
  get unclaimedResponses() { return this.responses.length; }

  /** See ResponseParser.setBodySink. */
  setBodySink(sink) { this.parser.setBodySink(sink); }

  /** Writes bytes and resolves once the socket has taken them (waits for 'drain' when it pushes back). */
  async write(bytes) {
    if (this.endError) throw this.endError;
    if (this.socket.write(bytes)) return;
    await new Promise((resolve, reject) => {
      const onDrain = () => { this.socket.off('close', onClose); resolve(); };
      const onClose = () => { this.socket.off('drain', onDrain); reject(this.endError ?? new Error('connection closed')); };
      this.socket.once('drain', onDrain);
      this.socket.once('close', onClose);
    });
  }

  /** The next response; rejects when the connection ends first or stays silent for ANSWER_IDLE_LIMIT_MS. */
  nextResponse() {
    if (this.responses.length > 0) return Promise.resolve(this.responses.shift());
    if (this.endError) return Promise.reject(this.endError);
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, since: Date.now() };
      const check = () => {
        const silentMs = Date.now() - Math.max(waiter.since, this.lastByteAt);
        if (silentMs < ANSWER_IDLE_LIMIT_MS) {
          waiter.timer = setTimeout(check, ANSWER_IDLE_LIMIT_MS - silentMs);
          return;
        }
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no byte for ${ANSWER_IDLE_LIMIT_MS / 1000} s`));
      };
      waiter.timer = setTimeout(check, ANSWER_IDLE_LIMIT_MS);
      this.waiters.push(waiter);
    });
  }

  close() { this.socket.destroy(); }

  deliver(response) {
    const waiter = this.waiters.shift();
    if (!waiter) {
      this.responses.push(response);
      return;
    }
    clearTimeout(waiter.timer);
    waiter.resolve(response);
  }

  end(error) {
    this.endError ??= error;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(this.endError);
    }
  }
}

module.exports = { HttpConnection, ANSWER_IDLE_LIMIT_MS };
