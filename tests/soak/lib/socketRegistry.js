'use strict';
// Every client socket of a session is opened here, so that the session (or the run's deadline) can destroy
// whatever is still open, whichever client opened it and however it ended.

const net = require('node:net');

const HOST = '127.0.0.1';
const CONNECT_TIMEOUT_MS = 10_000;

class SocketRegistry {
  constructor() {
    this.sockets = new Set();
  }

  get openCount() { return this.sockets.size; }

  /** Resolves with a connected socket to 127.0.0.1:port (Nagle off); rejects on error or after 10 s. */
  connect(port) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: HOST, noDelay: true });
      this.sockets.add(socket);
      // Errors are read from the socket's users' own listeners; this one keeps an unhandled 'error' from ending
      // the runner.
      socket.on('error', (error) => { socket.lastError ??= error; });
      socket.once('close', () => this.sockets.delete(socket));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('close', () => {
        clearTimeout(timer);
        reject(socket.lastError ?? new Error('closed before connecting'));
      });
    });
  }

  destroyAll() {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

/** A promise that resolves when socket closes (at once if it has). */
function closedPromise(socket) {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', resolve));
}

/** What ended a socket, for messages: its error code, or "closed by the server". */
function closeReason(socket) {
  return socket.lastError ? (socket.lastError.code ?? socket.lastError.message) : 'closed by the server';
}

module.exports = { SocketRegistry, closedPromise, closeReason };
