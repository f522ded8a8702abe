#include "ws/Deflater.h"

#include "ws/DeflateNegotiation.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace loopwire::ws {

namespace {

constexpr unsigned char kMessageTail[4] = {0x00, 0x00, 0xFF, 0xFF};
// Room for compressed output is made this much at a time beyond deflate's bound of what fits.
constexpr std::size_t kOutputSlack = 64;
// Compression level: zlib's default, which uWebSockets also uses.
constexpr int kLevel = Z_DEFAULT_COMPRESSION;

}  // namespace

struct Deflater::Stream {
    z_stream z{};
};

Deflater::Deflater(std::uint8_t windowBits, std::uint8_t memLevel, bool contextTakeover)
    : stream_(new (std::nothrow) Stream), contextTakeover_(contextTakeover) {
    if (stream_ == nullptr) return;
    const int bits = std::clamp(windowBits, kMinCompressorWindowBits, kMaxWindowBits);
    const int level = std::clamp<int>(memLevel, 1, 9);
    if (deflateInit2(&stream_->z, kLevel, Z_DEFLATED, -bits, level, Z_DEFAULT_STRATEGY) != Z_OK) {
        delete stream_;
        stream_ = nullptr;
    }
}

Deflater::~Deflater() {
    if (stream_ == nullptr) return;
    deflateEnd(&stream_->z);
    delete stream_;
}

bool Deflater::compress(std::string_view message, ByteBuffer& out) {
    if (stream_ == nullptr) return false;
    z_stream& z = stream_->z;
    const std::size_t start = out.size();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
    z.avail_in = static_cast<uInt>(message.size());
    int status = Z_OK;
    do {
        const std::size_t room = deflateBound(&z, z.avail_in) + kOutputSlack;
        char* at = out.prepare(room);
        z.next_out = reinterpret_cast<Bytef*>(at);
        z.avail_out = static_cast<uInt>(room);
        status = deflate(&z, Z_SYNC_FLUSH);
        out.commit(room - z.avail_out);
        if (status != Z_OK && status != Z_BUF_ERROR) {
            deflateReset(&z);
            out.truncate(start);
            return false;
        }
        // A sync flush is complete when deflate left output room unused.
    } while (z.avail_out == 0);
    // Every sync flush ends with the empty stored block 00 00 FF FF, which the receiver adds back.
    const std::size_t produced = out.size() - start;
    if (produced < sizeof kMessageTail ||
        std::memcmp(out.data() + out.size() - sizeof kMessageTail, kMessageTail, sizeof kMessageTail) != 0) {
        deflateReset(&z);
        out.truncate(start);
        return false;
    }
    out.truncate(out.size() - sizeof kMessageTail);
    if (!contextTakeover_) deflateReset(&z);
    return true;
}

}  // namespace loopwire::ws
