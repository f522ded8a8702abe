'use strict';
// An incremental HTTP/1.1 response parser for the soak clients: bytes in, complete responses out, in order.
// Bodies are framed by Content-Length only (both soak servers always send it); anything else is a protocol
// error. A body sink, when set, receives the body bytes as they arrive instead of collecting them.

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 64 * 1024;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/;

class ProtocolError extends Error {}

/** { status, reason, headers } from the text of a head (without its final blank line). */
function parseHead(text) {
  const lines = text.split('\r\n');
  const statusLine = STATUS_LINE.exec(lines[0]);
  if (!statusLine) throw new ProtocolError(`bad status line ${JSON.stringify(lines[0].slice(0, 80))}`);
  const headers = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ProtocolError(`bad header line ${JSON.stringify(line.slice(0, 80))}`);
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine[1]), reason: statusLine[2] ?? '', headers };
}

function bodyLengthOf(head) {
  if (head.headers['transfer-encoding'] !== undefined) {
    throw new ProtocolError(`unexpected transfer-encoding ${head.headers['transfer-encoding']}`);
  }
  const text = head.headers['content-length'];
  if (text === undefined) {
    if (head.status === 204 || head.status === 304) return 0;
    throw new ProtocolError(`a ${head.status} response without content-length`);
  }
  if (!/^\d+$/.test(text)) throw new ProtocolError(`bad content-length ${JSON.stringify(text)}`);
  return Number(text);
}

class ResponseParser {
  /** onResponse({ status, reason, headers, body, bodyLength }): body is null when a sink took the bytes. */
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.bodySink = null;
    this.pending = Buffer.alloc(0);
    this.head = null;
  }

  /** sink(piece, offset) receives the body bytes of the responses that start from now on; null to collect. */
  setBodySink(sink) { this.bodySink = sink; }

  /** Feeds received bytes; calls onResponse for each response they complete. Throws ProtocolError. */
  push(bytes) {
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    for (;;) {
      if (this.head === null && !this.takeHead()) return;
      if (this.pending.length === 0 && this.bodyLeft > 0) return;
      this.takeBody();
    }
  }

  takeHead() {
    const end = this.pending.indexOf(HEAD_END);
    if (end < 0) {
      if (this.pending.length > MAX_HEAD_BYTES) throw new ProtocolError('a response head over 64 KiB');
      return false;
    }
    this.head = parseHead(this.pending.toString('latin1', 0, end));
    this.pending = this.pending.subarray(end + HEAD_END.length);
    this.bodyLength = bodyLengthOf(this.head);
    this.bodyLeft = this.bodyLength;
    this.bodyReceived = 0;
    this.bodyPieces = [];
    this.sinkForThis = this.bodySink;
    return true;
  }

  takeBody() {
    const take = Math.min(this.bodyLeft, this.pending.length);
    if (take > 0) {
      const piece = this.pending.subarray(0, take);
      if (this.sinkForThis) this.sinkForThis(piece, this.bodyReceived);
      else this.bodyPieces.push(piece);
      this.pending = this.pending.subarray(take);
      this.bodyLeft -= take;
      this.bodyReceived += take;
    }
    if (this.bodyLeft > 0) return;
    const body = this.sinkForThis ? null : Buffer.concat(this.bodyPieces, this.bodyLength);
    const response = { ...this.head, body, bodyLength: this.bodyLength };
    this.head = null;
    this.bodyPieces = [];
    this.onResponse(response);
  }
}

module.exports = { ResponseParser, ProtocolError };
