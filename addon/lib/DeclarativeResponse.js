'use strict';
// DeclarativeResponse: a response described once, answered natively for every request with no JavaScript call.
//
//   app.get('/hi/:name', new DeclarativeResponse()
//     .writeHeader('content-type', 'text/plain').write('Hello ').writeParameterValue('name').end('!'));
//
// end() returns the program as an ArrayBuffer, in the encoding of uWebSockets.js v20 (opcode byte, then operands
// with a 1-byte length, or a 2-byte little-endian length for text); app.get() and the other route methods take
// it in place of a handler. addon/src/DeclarativeProgram.cpp runs it.

const { toBytes } = require('./bytes.js');

const kMaxShortOperand = 0xff;
const kMaxLongOperand = 0xffff;

const Opcode = Object.freeze({
  end: 0,
  writeHeader: 1,
  writeBody: 2,
  writeQueryValue: 3,
  writeHeaderValue: 4,
  write: 5,
  writeParameterValue: 6,
  writeStatus: 7,
});

class DeclarativeResponse {
  #chunks = [];

  #opcode(opcode) {
    this.#chunks.push(Buffer.of(opcode));
  }

  #short(value, what) {
    const bytes = toBytes(value, what);
    if (bytes.length > kMaxShortOperand) {
      throw new RangeError(`${what} is ${bytes.length} bytes; at most ${kMaxShortOperand} are allowed`);
    }
    this.#chunks.push(Buffer.of(bytes.length), bytes);
  }

  #long(value, what) {
    const bytes = toBytes(value, what);
    if (bytes.length > kMaxLongOperand) {
      throw new RangeError(`${what} is ${bytes.length} bytes; at most ${kMaxLongOperand} are allowed`);
    }
    this.#chunks.push(Buffer.of(bytes.length & 0xff, bytes.length >> 8), bytes);
  }

  /** Writes the status line ("404 Not Found"). */
  writeStatus(status) {
    this.#opcode(Opcode.writeStatus);
    this.#short(status, 'DeclarativeResponse.writeStatus: status');
    return this;
  }

  /** Writes a header. */
  writeHeader(key, value) {
    this.#opcode(Opcode.writeHeader);
    this.#short(key, 'DeclarativeResponse.writeHeader: key');
    this.#short(value, 'DeclarativeResponse.writeHeader: value');
    return this;
  }

  /** Reserved by uWebSockets.js (it writes nothing); kept for compatibility. */
  writeBody() {
    this.#opcode(Opcode.writeBody);
    return this;
  }

  /** Writes the decoded value of the request's query parameter `key`. */
  writeQueryValue(key) {
    this.#opcode(Opcode.writeQueryValue);
    this.#short(key, 'DeclarativeResponse.writeQueryValue: key');
    return this;
  }

  /** Writes the value of the request's header `key` (lower case). */
  writeHeaderValue(key) {
    this.#opcode(Opcode.writeHeaderValue);
    this.#short(key, 'DeclarativeResponse.writeHeaderValue: key');
    return this;
  }

  /** Writes the value of the route parameter `key` (":key" in the pattern). */
  writeParameterValue(key) {
    this.#opcode(Opcode.writeParameterValue);
    this.#short(key, 'DeclarativeResponse.writeParameterValue: key');
    return this;
  }

  /** Writes text into the body. */
  write(value) {
    this.#opcode(Opcode.write);
    this.#long(value, 'DeclarativeResponse.write: value');
    return this;
  }

  /** Ends the response with `value` as the last of the body; returns the program, for app.get(pattern, program). */
  end(value) {
    this.#opcode(Opcode.end);
    this.#long(value, 'DeclarativeResponse.end: value');
    const program = Buffer.concat(this.#chunks);
    return program.buffer.slice(program.byteOffset, program.byteOffset + program.byteLength);
  }
}

module.exports = { DeclarativeResponse };
