#include "ws/Inflater.h"

#include "ws/DeflateNegotiation.h"

#include <zlib.h>

#include <algorithm>
#include <new>

namespace loopwire::ws {

namespace {

// The tail a sender strips from every compressed message (an empty stored block, RFC 7692 section 7.2.1).
constexpr unsigned char kMessageTail[4] = {0x00, 0x00, 0xFF, 0xFF};
// Output is made room for this much at a time (less when the bound is closer).
constexpr std::size_t kOutputStep = 16 * 1024;

}  // namespace

struct Inflater::Stream {
    z_stream z{};
};

Inflater::Inflater(std::uint8_t windowBits, bool contextTakeover)
    : stream_(new (std::nothrow) Stream), contextTakeover_(contextTakeover) {
    if (stream_ == nullptr) return;
    // Negative window bits: raw deflate, no zlib header. Inflating with a window at least as large as the
    // sender's is always safe; zlib wants 9 or more with some versions, so 8 is read as 9.
    const int bits = std::clamp(windowBits, kMinCompressorWindowBits, kMaxWindowBits);
    if (inflateInit2(&stream_->z, -bits) != Z_OK) {
        delete stream_;
        stream_ = nullptr;
    }
}

Inflater::~Inflater() {
    if (stream_ == nullptr) return;
    inflateEnd(&stream_->z);
    delete stream_;
}

void Inflater::startOver() noexcept {
    inflateReset(&stream_->z);
    streamEnded_ = false;
}

Inflater::Result Inflater::inflateInto(std::string_view compressed, ByteBuffer& out, std::size_t maxBytes) {
    if (stream_ == nullptr) return Result::Corrupt;
    if (streamEnded_ || compressed.empty()) return Result::Ok;
    z_stream& z = stream_->z;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    for (;;) {
        // Room for at most one byte past the bound: producing it proves the message too big.
        const std::size_t left = maxBytes - produced_;
        const std::size_t step = left < kOutputStep ? left + 1 : kOutputStep;
        char* room = out.prepare(step);
        z.next_out = reinterpret_cast<Bytef*>(room);
        z.avail_out = static_cast<uInt>(step);
        const int status = inflate(&z, Z_SYNC_FLUSH);
        const std::size_t made = step - z.avail_out;
        out.commit(made);
        produced_ += made;
        if (produced_ > maxBytes) return Result::TooBig;
        if (status == Z_STREAM_END) {
            // A final block: the message is over whatever follows (the tail, or garbage a sender may not send).
            streamEnded_ = true;
            return Result::Ok;
        }
        if (status == Z_BUF_ERROR || (status == Z_OK && z.avail_in == 0 && z.avail_out != 0)) return Result::Ok;
        if (status != Z_OK) return Result::Corrupt;
    }
}

Inflater::Result Inflater::add(std::string_view compressed, ByteBuffer& out, std::size_t maxBytes) {
    return inflateInto(compressed, out, maxBytes);
}

Inflater::Result Inflater::finish(ByteBuffer& out, std::size_t maxBytes) {
    Result result =
        inflateInto(std::string_view(reinterpret_cast<const char*>(kMessageTail), sizeof kMessageTail), out, maxBytes);
    produced_ = 0;
    if (stream_ != nullptr && (!contextTakeover_ || streamEnded_ || result != Result::Ok)) startOver();
    return result;
}

}  // namespace loopwire::ws
