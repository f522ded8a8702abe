// BrokerEnvelope: what loopwire puts in front of a message it sends through a broker, so that the Apps that
// receive it deliver it as it was published (text or binary, compressed or not) and the App that sent it does
// not deliver it twice. Pure; no allocation.
//
// The layout (13 bytes, then the message as it was published):
//   byte 0        0x00, which no UTF-8 text a program publishes starts with
//   bytes 1-2     "LW"
//   byte 3        version: 1
//   byte 4        flags: bit 0 binary, bit 1 compress, bit 2 numbered (a topic with history: what follows the
//                 envelope is the message stamped with its position, and the publishing App delivers it too)
//   bytes 5-12    the publishing link's origin id (little-endian), random per connectPubSub
// A message without it (published into the channel by another program, `redis-cli PUBLISH loopwire:chat hi`) is
// delivered as it is: as text when it is valid UTF-8, else as binary (the WebSocket layer decides).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::broker {

struct BrokerEnvelope {
    static constexpr std::size_t kBytes = 13;
    static constexpr std::uint8_t kVersion = 1;

    bool binary = false;
    bool compress = false;
    bool numbered = false;
    std::uint64_t origin = 0;

    // Writes the envelope into out; returns the view of those kBytes.
    std::string_view writeTo(char (&out)[kBytes]) const noexcept;
    // Reads an envelope from the front of message and removes it from message; false (message untouched) when
    // message does not start with one.
    bool readFrom(std::string_view& message) noexcept;
};

}  // namespace loopwire::broker
