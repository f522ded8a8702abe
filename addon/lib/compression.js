'use strict';
// The compression constants of a WebSocket behaviour, with the values uWebSockets.js v20 gives them (checked
// against its binary, npm package uwebsockets@3.0.6), so that code and stored configuration that use the numbers
// mean the same thing on loopwire. The low byte describes the compressor: 0 none, 1 one shared by every
// connection (no context between messages), or (window bits << 4) | zlib memory level for a dedicated one. Bits
// 8-11 describe the decompressor: 0 none, 1 shared, or its window bits. A behaviour combines one of each with |.

const dedicatedCompressor = (windowBits, memLevel) => (windowBits << 4) | memLevel;
const dedicatedDecompressor = (windowBits) => windowBits << 8;

const COMPRESSION = Object.freeze({
  DISABLED: 0,
  SHARED_COMPRESSOR: 1,
  SHARED_DECOMPRESSOR: 1 << 8,
  DEDICATED_COMPRESSOR_3KB: dedicatedCompressor(9, 1),
  DEDICATED_COMPRESSOR_4KB: dedicatedCompressor(9, 2),
  DEDICATED_COMPRESSOR_8KB: dedicatedCompressor(10, 3),
  DEDICATED_COMPRESSOR_16KB: dedicatedCompressor(11, 4),
  DEDICATED_COMPRESSOR_32KB: dedicatedCompressor(12, 5),
  DEDICATED_COMPRESSOR_64KB: dedicatedCompressor(13, 6),
  DEDICATED_COMPRESSOR_128KB: dedicatedCompressor(14, 7),
  DEDICATED_COMPRESSOR_256KB: dedicatedCompressor(15, 8),
  DEDICATED_COMPRESSOR: dedicatedCompressor(15, 8),
  DEDICATED_DECOMPRESSOR_512B: dedicatedDecompressor(9),
  DEDICATED_DECOMPRESSOR_1KB: dedicatedDecompressor(10),
  DEDICATED_DECOMPRESSOR_2KB: dedicatedDecompressor(11),
  DEDICATED_DECOMPRESSOR_4KB: dedicatedDecompressor(12),
  DEDICATED_DECOMPRESSOR_8KB: dedicatedDecompressor(13),
  DEDICATED_DECOMPRESSOR_16KB: dedicatedDecompressor(14),
  DEDICATED_DECOMPRESSOR_32KB: dedicatedDecompressor(15),
  DEDICATED_DECOMPRESSOR: dedicatedDecompressor(15),
});

module.exports = { COMPRESSION };
