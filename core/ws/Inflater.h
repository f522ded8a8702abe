// Inflater: decompresses permessage-deflate messages (RFC 7692 section 7.2.2) with a bound on what it produces.
//
// A compressed message arrives as the payloads of its frames; add() inflates each piece as it comes and finish()
// ends the message (inflating the 4-byte tail 00 00 FF FF the sender removed). The inflated bytes are appended to
// the caller's ByteBuffer, and never more than maxBytes of them per message: inflation stops at the first byte past
// the bound (Result::TooBig), so a deflate bomb (16 MiB of zeros in 16 KB) costs maxBytes of memory at most, never
// its inflated size. Corrupt input is Result::Corrupt.
//
// With context takeover the window carries over from message to message (the client's
// `client_no_context_takeover` not agreed); without it every message starts afresh. One Inflater serves one
// connection (a dedicated decompressor) or, without context takeover, every connection of a loop (shared).
// Allocates its zlib state (about 7 KB plus the window) at construction; nothing per message beyond the growth of
// the caller's buffer.
#pragma once

#include "base/ByteBuffer.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::ws {

class Inflater {
public:
    enum class Result : std::uint8_t { Ok, TooBig, Corrupt };

    // windowBits: the window the client compresses with (8 to 15, from the negotiation).
    Inflater(std::uint8_t windowBits, bool contextTakeover);
    ~Inflater();
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;

    // False when zlib could not set up its state (out of memory): nothing can be inflated.
    bool ready() const noexcept { return stream_ != nullptr; }

    // Inflates a piece of the current message into out. maxBytes bounds the message's inflated size, counted
    // from the first add() after the last finish().
    Result add(std::string_view compressed, ByteBuffer& out, std::size_t maxBytes);
    // Ends the current message; the next add() starts the next one.
    Result finish(ByteBuffer& out, std::size_t maxBytes);

private:
    Result inflateInto(std::string_view compressed, ByteBuffer& out, std::size_t maxBytes);
    void startOver() noexcept;

    struct Stream;  // zlib's z_stream, kept out of this header
    Stream* stream_;
    bool contextTakeover_;
    bool streamEnded_ = false;  // the message held a final deflate block: the rest is ignored
    std::size_t produced_ = 0;  // inflated bytes of the current message
};

}  // namespace loopwire::ws
