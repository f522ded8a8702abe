// Encoder: one content coding's compressor (gzip, brotli or zstd) behind one interface, for a whole body (a cached
// file's variant) or a stream of writes (a response compressed as it is written).
//
// Who calls it: the static-file layer and the response compression of app.compress, on the loop thread or on a
// worker (an encoder belongs to one thread at a time). create() allocates the codec's state, which is the cost of
// an encoder (zlib 262 KiB, brotli 150 KiB to 3 MiB, zstd 0.5 to 2 MiB by level and window, see
// docs/decisions/compression.md): make one per stream, or reuse one with reset(). encode() allocates only as the
// output buffer grows.
//
// Availability: gzip always (zlib, Node's own in the addon). Brotli and zstd when the process has them: the
// standalone library links libbrotlienc and libzstd; the Node addon finds them in the node executable, which
// exports Node's own brotli (every supported Node) and zstd (Node 22.15 and later), and never loads a second copy.
// available() says which; create() of an unavailable coding returns null.
#pragma once

#include "base/ByteBuffer.h"
#include "compress/AcceptEncoding.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace loopwire::compress {

class Encoder {
public:
    enum class Flush : std::uint8_t {
        None,    // keep what the codec buffers (more input follows soon)
        Sync,    // everything so far can be decoded by the client (a streamed response's write)
        Finish,  // the end of the stream: its trailer is written
    };

    // The largest window a zstd frame may need to be decoded by an HTTP client (RFC 9659: 8 MiB).
    static constexpr int kMaxZstdWindowLog = 23;
    // The window brotli and zstd use for a stream of unknown length: what a streaming compressor holds per
    // response (brotli 2^20 bytes, zstd 2^19), measured in docs/decisions/compression.md.
    static constexpr int kStreamingBrotliWindowBits = 20;
    static constexpr int kStreamingZstdWindowLog = 19;

    // An encoder of coding at level (gzip 1-9, brotli 0-11, zstd 1-19; clamped), for a body of about sizeHint bytes
    // (0: unknown, a stream), which lets brotli and zstd size their window to the body. Null when coding is Identity
    // or unavailable, or the codec's state could not be made.
    static std::unique_ptr<Encoder> create(ContentCoding coding, int level, std::uint64_t sizeHint = 0);
    static bool available(ContentCoding coding) noexcept;

    virtual ~Encoder() = default;
    Encoder(const Encoder&) = delete;
    Encoder& operator=(const Encoder&) = delete;

    ContentCoding coding() const noexcept { return coding_; }
    // Compresses input and appends what the codec gives to out (as flush asks); false when the codec failed, with
    // out as it was. After Finish, reset() before the next stream.
    virtual bool encode(std::string_view input, ByteBuffer& out, Flush flush) = 0;
    // Starts a new stream with the same settings.
    virtual bool reset() = 0;

protected:
    explicit Encoder(ContentCoding coding) noexcept : coding_(coding) {}

private:
    ContentCoding coding_;
};

// The whole of input compressed with coding at level into out (replaced); false when the coding is unavailable or
// failed. Allocates.
bool compressWhole(ContentCoding coding, int level, std::string_view input, std::string& out);

}  // namespace loopwire::compress
