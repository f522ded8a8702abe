// Http2Settings: the SETTINGS of RFC 9113 section 6.5: what loopwire announces, and what it keeps of the client's.
#pragma once

#include "FrameHeader.h"
#include "base/Limits.h"

#include <cstdint>

namespace loopwire::h2 {

enum class SettingId : std::uint16_t {
    HeaderTableSize = 0x1,
    EnablePush = 0x2,
    MaxConcurrentStreams = 0x3,
    InitialWindowSize = 0x4,
    MaxFrameSize = 0x5,
    MaxHeaderListSize = 0x6,
    EnableConnectProtocol = 0x8,  // RFC 8441
};

// The largest flow-control window (RFC 9113 section 6.9.1).
inline constexpr std::int64_t kMaxWindow = 0x7fffffff;
// SETTINGS_INITIAL_WINDOW_SIZE's initial value, for both sides' streams, and the connection's initial window.
inline constexpr std::int64_t kDefaultWindow = 65535;

// What loopwire announces.
// Streams a client may have open at once; a HEADERS frame past it gets RST_STREAM REFUSED_STREAM.
inline constexpr std::uint32_t kMaxConcurrentStreams = 100;
// The header list a request may have, counted as SETTINGS_MAX_HEADER_LIST_SIZE counts it: HTTP/1.1's head limit.
inline constexpr std::uint32_t kMaxHeaderListBytes = limits::kMaxHeaderSectionBytes;
// A header block with the frames that carry it (HEADERS and CONTINUATION, their frame headers included): twice
// the list limit leaves room for a block that codes its fields as literals. Past it: GOAWAY ENHANCE_YOUR_CALM.
inline constexpr std::size_t kMaxHeaderBlockBytes = 2 * kMaxHeaderListBytes;
// The connection's receive window once the preface is answered (a WINDOW_UPDATE raises it from kDefaultWindow):
// the request bodies of every stream together may be this far ahead of their handlers.
inline constexpr std::int64_t kConnectionReceiveWindow = 1 << 20;
// A window is opened again (WINDOW_UPDATE) once this share of it has been consumed: fewer frames than one per
// DATA frame, and never a stall.
inline constexpr std::int64_t kStreamWindowUpdateBytes = kDefaultWindow / 2;
inline constexpr std::int64_t kConnectionWindowUpdateBytes = kConnectionReceiveWindow / 2;

// Floods (FloodGuard): what a client may cause per second before GOAWAY ENHANCE_YOUR_CALM.
// Streams reset before their response was complete, by the client (rapid reset) or by the server for a client's
// error (MadeYouReset). A browser that cancels every image of a page it leaves stays far below.
inline constexpr std::uint32_t kMaxStreamResetsPerSecond = 200;
// Frames that carry no request and no body byte and that a client has no need to send often: SETTINGS, PING
// (each answered), PRIORITY, empty DATA that does not end its stream, extension frames. Clients send a handful per
// second. WINDOW_UPDATE is not among them: a client downloading fast sends thousands, each one the answer to data.
inline constexpr std::uint32_t kMaxControlFramesPerSecond = 1000;

// What the client announced, as far as the server acts on it.
struct PeerSettings {
    std::uint32_t initialWindowSize = static_cast<std::uint32_t>(kDefaultWindow);
    std::uint32_t maxFrameSize = kDefaultMaxFrameSize;
};

}  // namespace loopwire::h2
