// ChunkedDecoder: decodes a chunked request body (RFC 9112 section 7.1), zero-copy and incremental.
//
// Pure: bytes in, results out; no allocation.
//
// Contract
// - decode(input) consumes a prefix of input and stops as soon as it has a run of payload bytes to hand over,
//   has finished the body, has found an error, or has consumed all of input. Call it again with the rest of the
//   input (input.substr(result.consumed)) while status is NeedMore and input remains; then again when more bytes
//   arrive. A partial chunk-size line or trailer is remembered across calls; the caller does not keep it.
// - result.data is the payload found by this call: a view into input (empty when none). It is part of consumed.
// - Complete: the last chunk and the trailer section have been consumed; bytes after result.consumed belong to
//   the next request. Trailer fields are validated and discarded.
// - Error: result.error says why; the decoder stays in the error state until reset(). Likewise after Complete,
//   decode() consumes nothing and answers Complete until reset().
// - reset() prepares it for the next body.
#pragma once

#include "HttpParser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire {

struct ChunkedResult {
    ParseStatus status;
    HttpError error;        // meaningful when status == Error
    std::size_t consumed;   // bytes of input consumed by this call, payload included
    std::string_view data;  // payload bytes, a view into input; may be empty
};

class ChunkedDecoder {
public:
    ChunkedResult decode(std::string_view input) noexcept;
    void reset() noexcept;

    // Payload bytes left in the chunk being read (0 between chunks). For onDataV2's remaining-length hint.
    std::uint64_t remainingInChunk() const noexcept { return chunkRemaining_; }

private:
    ChunkedResult fail(HttpError error, std::size_t consumed) noexcept;

    std::uint8_t state_ = 0;             // where in the chunked grammar the consumed bytes end (see .cpp)
    HttpError error_ = HttpError::None;  // the error that stopped the decoder, repeated until reset()
    std::uint64_t chunkRemaining_ = 0;   // payload bytes left in the current chunk
    std::uint64_t size_ = 0;             // the chunk size being read
    std::uint32_t digits_ = 0;           // hex digits of the chunk size read so far
    std::uint32_t extensionBytes_ = 0;   // bytes after the chunk size on its line, up to the CR
    std::uint32_t trailerBytes_ = 0;     // bytes of the trailer section seen so far, its final CRLF included
};

}  // namespace loopwire
