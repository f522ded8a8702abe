// Fuzz target for h2::FrameReader.
//
// Input: byte 0 seeds the read sizes; the rest is what a client sends after the preface. The stream is read once
// whole and once as a connection receives it, in reads of 1 to 64 bytes appended to a buffer that keeps what the
// reader has not consumed. Both must report the same frames (type, flags, stream, length, payload) and end the same
// way, and every frame must keep the contract: consumed within the bytes given, a payload inside them, at most
// kDefaultMaxFrameSize per frame, a header block no longer than its frames, END_HEADERS on every HEADERS frame.
#include "h2/FrameReader.h"

#include "FuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

using namespace loopwire::h2;

constexpr std::size_t kBlockLimit = 4096;

// Reads every whole frame at the start of buffer; returns the bytes consumed. log gets one entry per frame.
std::size_t readAll(std::string& buffer, std::string& log, ReadStatus& last) {
    const FrameReader reader(kBlockLimit);
    std::size_t at = 0;
    for (;;) {
        const FrameRead r = reader.read(buffer.data() + at, buffer.size() - at);
        last = r.status;
        if (r.status == ReadStatus::NeedMore) return at;
        if (r.status == ReadStatus::ConnectionError) {
            log += "E" + std::to_string(static_cast<unsigned>(r.error)) + ";";
            return at;
        }
        FUZZ_CHECK(r.consumed >= kFrameHeaderBytes && r.consumed <= buffer.size() - at);
        const FrameHeader& h = r.frame.header;
        if (r.status == ReadStatus::StreamError) {
            FUZZ_CHECK(h.frameType() == FrameType::Priority && h.streamId != 0);
            log += "S" + std::to_string(h.streamId) + ";";
        } else {
            const char* begin = buffer.data() + at;
            FUZZ_CHECK(r.frame.payload.data() >= begin &&
                       r.frame.payload.data() + r.frame.payload.size() <= begin + r.consumed);
            if (h.frameType() == FrameType::Headers) {
                FUZZ_CHECK(h.has(flags::kEndHeaders) && h.length == r.frame.payload.size());
                FUZZ_CHECK(r.consumed <= kBlockLimit);
            } else {
                FUZZ_CHECK(h.length <= kDefaultMaxFrameSize && r.consumed == kFrameHeaderBytes + h.length);
            }
            log += "F" + std::to_string(h.type) + "/" + std::to_string(h.flags) + "/" + std::to_string(h.streamId) +
                   ":" + std::string(r.frame.payload) + ";";
        }
        at += r.consumed;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string stream(reinterpret_cast<const char*>(data + 1), size - 1);

    std::string whole = stream;
    std::string wholeLog;
    ReadStatus wholeLast;
    readAll(whole, wholeLog, wholeLast);

    std::string splitLog;
    ReadStatus splitLast = ReadStatus::NeedMore;
    std::string buffer;
    loopwire::fuzz::PieceSizes pieces(data[0] * 2654435761u + 1, 64);
    for (std::size_t at = 0; at < stream.size() && splitLast != ReadStatus::ConnectionError;) {
        const std::size_t piece = pieces.next(stream.size() - at);
        buffer.append(stream, at, piece);
        at += piece;
        const std::size_t consumed = readAll(buffer, splitLog, splitLast);
        buffer.erase(0, consumed);
    }
    FUZZ_CHECK(wholeLog == splitLog);
    return 0;
}
