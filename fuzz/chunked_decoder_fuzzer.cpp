// Fuzz target for ChunkedDecoder.
//
// Input: byte 0 chooses how the body is cut into reads (0: one byte per read; otherwise reads of 1 to 64 bytes
// drawn from a generator it seeds), the rest is a chunked body as a client sends it. The body is decoded once
// whole and once in those reads, calling decode() again on what is left of each read as a connection does; both
// must give the same payload, the same bytes consumed and the same verdict. Every call gets an exactly sized heap
// copy of its input so that the sanitizer sees any read past it, and every result is checked against the
// contract: consumed within the input, the payload a view inside the consumed bytes, progress on every NeedMore.
#include "http/ChunkedDecoder.h"

#include "FuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace loopwire;

struct Outcome {
    ParseStatus status = ParseStatus::NeedMore;
    HttpError error = HttpError::None;
    std::size_t consumed = 0;
    std::string payload;

    bool operator==(const Outcome&) const = default;
};

Outcome decodeInReads(std::string_view body, const std::vector<std::size_t>& sizes) {
    ChunkedDecoder decoder;
    Outcome outcome;
    std::size_t fed = 0;
    for (const std::size_t n : sizes) {
        std::string_view rest = body.substr(fed, n);
        fed += n;
        while (!rest.empty()) {
            std::unique_ptr<char[]> exact(new char[rest.size()]);
            std::memcpy(exact.get(), rest.data(), rest.size());
            const ChunkedResult r = decoder.decode(std::string_view(exact.get(), rest.size()));
            FUZZ_CHECK(r.consumed <= rest.size());
            if (!r.data.empty()) {
                FUZZ_CHECK(r.data.data() >= exact.get() && r.data.data() + r.data.size() <= exact.get() + r.consumed);
            }
            outcome.payload.append(r.data);
            outcome.consumed += r.consumed;
            if (r.status == ParseStatus::Error) {
                FUZZ_CHECK(r.error != HttpError::None);
                outcome.status = r.status;
                outcome.error = r.error;
                // The error stays until reset().
                const ChunkedResult again = decoder.decode(std::string_view(exact.get(), rest.size()));
                FUZZ_CHECK(again.status == ParseStatus::Error && again.error == r.error && again.consumed == 0);
                return outcome;
            }
            if (r.status == ParseStatus::Complete) {
                outcome.status = r.status;
                FUZZ_CHECK(decoder.remainingInChunk() == 0);
                return outcome;
            }
            FUZZ_CHECK(r.consumed > 0);
            rest.remove_prefix(r.consumed);
        }
    }
    return outcome;
}

std::vector<std::size_t> readSizes(std::uint8_t seed, std::size_t total) {
    std::vector<std::size_t> sizes;
    std::uint32_t state =
        0x9E3779B9u ^ (static_cast<std::uint32_t>(seed) * 0x85EBCA6Bu) ^ static_cast<std::uint32_t>(total);
    std::size_t fed = 0;
    while (fed < total) {
        std::size_t n = 1;
        if (seed != 0) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            n = 1 + state % 64;
        }
        if (n > total - fed) n = total - fed;
        sizes.push_back(n);
        fed += n;
    }
    return sizes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    const Outcome whole = decodeInReads(body, {body.size()});
    const Outcome pieces = decodeInReads(body, readSizes(data[0], body.size()));
    if (!(whole == pieces)) {
        std::fprintf(
            stderr, "whole: status %d %s consumed %zu payload %zu; pieces: status %d %s consumed %zu payload %zu\n",
            static_cast<int>(whole.status), nameOf(whole.error).data(), whole.consumed, whole.payload.size(),
            static_cast<int>(pieces.status), nameOf(pieces.error).data(), pieces.consumed, pieces.payload.size());
        FUZZ_CHECK(whole == pieces);
    }
    return 0;
}
