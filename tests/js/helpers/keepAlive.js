'use strict';
// One keep-alive connection that sends requests one after another and reads each Content-Length response.

const net = require('node:net');

class KeepAliveClient {
  static open(port) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new KeepAliveClient(socket)));
      socket.on('error', reject);
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.waiting = null;
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.#deliver();
    });
  }

  #deliver() {
    if (!this.waiting) return;
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffer.subarray(0, headEnd).toString('latin1');
    const match = /content-length: (\d+)/i.exec(head);
    const length = match ? Number(match[1]) : 0;
    if (this.buffer.length < headEnd + 4 + length) return;
    const response = this.buffer.subarray(0, headEnd + 4 + length).toString('latin1');
    this.buffer = this.buffer.subarray(headEnd + 4 + length);
    const { resolve } = this.waiting;
    this.waiting = null;
    resolve(response);
  }

  /** Sends raw request bytes and resolves with the response. */
  request(bytes) {
    return new Promise((resolve) => {
      this.waiting = { resolve };
      this.socket.write(bytes);
      this.#deliver();
    });
  }

  close() {
    this.socket.destroy();
  }
}

module.exports = { KeepAliveClient };
