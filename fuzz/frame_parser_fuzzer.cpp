// Fuzz target for ws::FrameParser.
//
// Input: byte 0 chooses the settings (bit 0: RSV1 allowed; bits 1-2: the message limit, 0, 125, 4096 or 1 MiB;
// the rest seeds the reads), the rest is what a client sends. The stream is parsed once whole and once in reads of
// 1 to 32 bytes, each an exactly sized heap copy. Both parses must report the same frames, the same unmasked
// payload bytes and the same error, and every report must keep the contract: each frame's payload adds up to its
// length and ends once, control frames are final and at most 125 bytes, RSV1 only where allowed, no message over
// the limit, continuations only inside a message.
#include "ws/FrameParser.h"

#include "FuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace {

using namespace loopwire::ws;

struct Checker {
    Checker(std::uint64_t messageLimit, bool allowed) : limit(messageLimit), rsv1Allowed(allowed) {}

    std::uint64_t limit;
    bool rsv1Allowed;
    std::string log;  // frames and payload bytes, in order
    bool inFrame = false;
    std::uint64_t frameLeft = 0;
    bool inMessage = false;
    std::uint64_t messageBytes = 0;
    FrameHeader current;

    bool onFrame(const FrameHeader& h) {
        FUZZ_CHECK(!inFrame);
        if (isControl(h.opcode)) {
            FUZZ_CHECK(h.fin && h.length <= kMaxControlPayloadBytes && !h.rsv1);
        } else if (h.opcode == Opcode::Continuation) {
            FUZZ_CHECK(inMessage && !h.rsv1);
            messageBytes += h.length;
        } else {
            FUZZ_CHECK(!inMessage);
            FUZZ_CHECK(!h.rsv1 || rsv1Allowed);
            inMessage = true;
            messageBytes = h.length;
        }
        FUZZ_CHECK(messageBytes <= limit);
        current = h;
        inFrame = true;
        frameLeft = h.length;
        log += "F" + std::to_string(static_cast<int>(h.opcode)) + (h.fin ? "f" : "") + (h.rsv1 ? "r" : "") + ":" +
               std::to_string(h.length) + ";";
        return true;
    }

    bool onPayload(std::string_view chunk, bool ends) {
        FUZZ_CHECK(inFrame && chunk.size() <= frameLeft);
        frameLeft -= chunk.size();
        FUZZ_CHECK(ends == (frameLeft == 0));
        log.append(chunk);
        if (ends) {
            inFrame = false;
            if (current.fin && !isControl(current.opcode)) inMessage = false;
            log += "|";
        }
        return true;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static constexpr std::uint64_t kLimits[] = {0, 125, 4096, 1 << 20};
    const bool rsv1Allowed = (data[0] & 1) != 0;
    const std::uint64_t limit = kLimits[(data[0] >> 1) & 3];
    const std::uint32_t seed = (data[0] >> 3) * 2654435761u + 7;
    const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

    Checker whole(limit, rsv1Allowed);
    std::string copy(stream);
    FrameParser wholeParser(limit, rsv1Allowed);
    const FrameError wholeError = wholeParser.parse(copy.data(), copy.size(), whole);

    Checker split(limit, rsv1Allowed);
    FrameParser splitParser(limit, rsv1Allowed);
    FrameError splitError = FrameError::None;
    loopwire::fuzz::PieceSizes pieces(seed, 32);
    for (std::size_t at = 0; at < stream.size() && splitError == FrameError::None;) {
        const std::size_t piece = pieces.next(stream.size() - at);
        std::unique_ptr<char[]> exact(new char[piece]);
        std::memcpy(exact.get(), stream.data() + at, piece);
        splitError = splitParser.parse(exact.get(), piece, split);
        at += piece;
    }
    FUZZ_CHECK(wholeError == splitError);
    FUZZ_CHECK(whole.log == split.log);
    if (wholeError != FrameError::None) {
        FUZZ_CHECK(closeCode(wholeError) == (wholeError == FrameError::MessageTooBig ? 1009 : 1002));
        FUZZ_CHECK(!describe(wholeError).empty());
    }
    return 0;
}
