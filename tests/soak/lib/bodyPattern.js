'use strict';
// The body of GET /stream: byte i is (i * 31 + 7) & 0xff, so a client can check every byte it receives. The
// pattern repeats every 256 bytes (31 * 256 is a multiple of 256), so one block serves every offset.

const PERIOD = 256;
const PIECE_BYTES = 64 * 1024;

const block = Buffer.alloc(PIECE_BYTES + PERIOD);
for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;

/** The pattern bytes from offset on, at most min(length, 64 KiB) of them (a view, not a copy). */
function patternPiece(offset, length) {
  const start = offset % PERIOD;
  return block.subarray(start, start + Math.min(length, PIECE_BYTES));
}

/** The offset of the first byte of chunk (which starts at body offset `offset`) that breaks the pattern, or -1. */
function firstPatternMismatch(chunk, offset) {
  for (let done = 0; done < chunk.length; done += PIECE_BYTES) {
    const piece = chunk.subarray(done, done + PIECE_BYTES);
    const expected = patternPiece(offset + done, piece.length);
    if (piece.equals(expected)) continue;
    for (let i = 0; i < piece.length; i++) {
      if (piece[i] !== expected[i]) return offset + done + i;
    }
  }
  return -1;
}

module.exports = { patternPiece, firstPatternMismatch, PIECE_BYTES };
