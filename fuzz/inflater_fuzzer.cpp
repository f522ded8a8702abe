// Fuzz target for ws::Inflater (permessage-deflate decompression with a bound).
//
// Input: byte 0 chooses the mode (bit 0: the rest is plain text, compressed here with zlib first; else it is taken
// as compressed bytes), context takeover (bit 1), the bound (bits 2-3: 0, 100, 4096 or 1 MiB bytes) and the
// window (bits 4-6: 8 + value). Compressed bytes are inflated once whole and once in pieces of 1 to 64 bytes, each
// an exactly sized heap copy: never more than the bound (plus the one byte that proves it exceeded), and with the
// largest window both must give the same result and the same bytes (see below why only then). Plain text must come back
// exactly when it fits the bound, and be TooBig when it does not.
#include "ws/Inflater.h"

#include "FuzzSupport.h"

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace {

using loopwire::ByteBuffer;
using loopwire::ws::Inflater;

// Raw deflate of text with a sync flush, its 00 00 FF FF tail removed.
std::string compress(std::string_view text, int windowBits) {
    z_stream z{};
    FUZZ_CHECK(deflateInit2(&z, 6, Z_DEFLATED, -windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, text.size()) + 16, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    FUZZ_CHECK(deflate(&z, Z_SYNC_FLUSH) == Z_OK);
    out.resize(out.size() - z.avail_out - 4);
    deflateEnd(&z);
    return out;
}

struct Outcome {
    Inflater::Result result = Inflater::Result::Ok;
    std::string bytes;
};

Outcome inflateInPieces(std::string_view compressed, std::uint8_t bits, bool takeover, std::size_t bound,
                        std::uint32_t seed) {
    Inflater inflater(bits, takeover);
    FUZZ_CHECK(inflater.ready());
    ByteBuffer out;
    Outcome outcome;
    loopwire::fuzz::PieceSizes pieces(seed, 64);
    for (std::size_t at = 0; at < compressed.size();) {
        const std::size_t left = compressed.size() - at;
        const std::size_t piece = seed == 0 ? left : pieces.next(left);
        std::unique_ptr<char[]> exact(new char[piece]);
        std::memcpy(exact.get(), compressed.data() + at, piece);
        outcome.result = inflater.add(std::string_view(exact.get(), piece), out, bound);
        FUZZ_CHECK(out.size() <= bound + 1);
        at += piece;
        if (outcome.result != Inflater::Result::Ok) break;
    }
    if (outcome.result == Inflater::Result::Ok) outcome.result = inflater.finish(out, bound);
    FUZZ_CHECK(out.size() <= bound + 1);
    outcome.bytes.assign(out.view());
    return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static constexpr std::size_t kBounds[] = {0, 100, 4096, 1 << 20};
    const bool plain = (data[0] & 1) != 0;
    const bool takeover = (data[0] & 2) != 0;
    const std::size_t bound = kBounds[(data[0] >> 2) & 3];
    const auto bits = static_cast<std::uint8_t>(8 + ((data[0] >> 4) & 7));
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);

    if (plain) {
        const std::string compressed = compress(rest, bits < 9 ? 9 : bits);
        const Outcome outcome = inflateInPieces(compressed, bits, takeover, bound, 0);
        if (rest.size() <= bound) {
            FUZZ_CHECK(outcome.result == Inflater::Result::Ok);
            FUZZ_CHECK(outcome.bytes == rest);
        } else {
            FUZZ_CHECK(outcome.result == Inflater::Result::TooBig);
        }
        return 0;
    }
    const Outcome whole = inflateInPieces(rest, bits, takeover, bound, 0);
    const Outcome split = inflateInPieces(rest, bits, takeover, bound, data[0] * 2654435761u + 1);
    // With a window under 2^15, invalid input that refers further back than the window is caught by zlib only
    // when the bytes referred to are no longer in the output of the same inflate() call, which depends on the
    // split; valid input never does that. With 2^15 (every distance deflate can express) both must agree.
    if (bits == 15) {
        FUZZ_CHECK(whole.result == split.result);
        if (whole.result == Inflater::Result::Ok) FUZZ_CHECK(whole.bytes == split.bytes);
    }
    return 0;
}
