// Deflater: compresses messages for permessage-deflate (RFC 7692 section 7.2.1): raw deflate flushed at the end of
// each message, with the 00 00 FF FF tail the receiver puts back removed.
//
// With context takeover the compressor keeps its window from message to message (repeated text shrinks to
// references); without it (`server_no_context_takeover`, or a compressor shared by the connections of a loop) every
// message starts afresh. windowBits and memLevel size it: uWebSockets' DEDICATED_COMPRESSOR_3KB to _256KB are
// pairs of them (see the addon). Allocates its zlib state at construction (about 2^(windowBits+2) +
// 2^(memLevel+9) bytes); nothing per message beyond the growth of the caller's buffer.
#pragma once

#include "base/ByteBuffer.h"

#include <cstdint>
#include <string_view>

namespace loopwire::ws {

class Deflater {
public:
    // windowBits 9 to 15 (zlib cannot compress with 2^8); memLevel 1 to 9.
    Deflater(std::uint8_t windowBits, std::uint8_t memLevel, bool contextTakeover);
    ~Deflater();
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;

    // False when zlib could not set up its state (out of memory).
    bool ready() const noexcept { return stream_ != nullptr; }

    // Appends the compressed form of message to out; false when zlib failed (the caller then sends the message
    // uncompressed).
    bool compress(std::string_view message, ByteBuffer& out);

private:
    struct Stream;
    Stream* stream_;
    bool contextTakeover_;
};

}  // namespace loopwire::ws
