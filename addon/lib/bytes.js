'use strict';
// What uWebSockets.js calls a RecognizedString, as bytes: strings are UTF-8; ArrayBuffer, SharedArrayBuffer and
// every ArrayBufferView are viewed without a copy.

/** Returns a Buffer over value's bytes; throws a TypeError naming `what` for anything else. */
function toBytes(value, what) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)) {
    return Buffer.from(value);
  }
  if (value === undefined) return Buffer.alloc(0);
  throw new TypeError(`${what} must be a string, ArrayBuffer, SharedArrayBuffer or ArrayBufferView`);
}

module.exports = { toBytes };
