// BodyStream: the body of one file response that does not go out in one end() call: a file read as the socket
// drains, or several ranges (multipart/byteranges) of a file or of cached bytes.
//
// The body is a fixed sequence of pieces (for multipart: each part's header, its bytes, and the closing
// delimiter), so any body offset maps to a piece and a place in it. pump() sends from the response's write
// offset on, through HttpResponse::tryEnd, until the connection takes no more (it runs again from onWritable) or
// the body is complete; nothing is buffered here: what the connection did not take is produced again from the
// offset. On plain TCP a file's bytes go from the page cache to the socket (sendfile(2), HttpResponse::tryEndFromFile);
// elsewhere (TLS) they are read into the server's one scratch buffer just before they are sent. Either way a slow
// reader holds a descriptor and a position, never a copy of the file.
//
// BodyStreamPool hands them out and takes them back, so that a response allocates nothing in the steady state.
// A stream ends (and goes back to the pool) when the body is complete, the response is aborted, or the file
// changed while it was being sent: then the connection is closed, so the client sees a body shorter than its
// Content-Length instead of bytes from two versions of the file. Loop thread only.
#pragma once

#include "CachedFile.h"
#include "static/ByteRanges.h"

#include <loopwire/HttpResponse.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace loopwire::files {

class BodyStreamPool;

class BodyStream {
public:
    // Bytes read from a file per read(2): the scratch buffer's size.
    static constexpr std::size_t kReadChunkBytes = 64 * 1024;
    // A multipart boundary: what follows "--" in each delimiter.
    static constexpr std::size_t kBoundaryBytes = 20;

    // Streams ranges (one: its bytes; several: multipart/byteranges) of representation, a view into entry (held
    // until the stream ends): from its bytes when they are in memory, else from fd (taken: closed when the stream
    // ends), which must be the file representation.identity describes. The response head must be written already but
    // not ended; start() computes the body's length (totalBytes()).
    // mayUseSendFile: the file's bytes may go by sendfile(2) where the connection can.
    void start(HttpResponse& response, std::shared_ptr<CachedFile> entry, const Representation& representation, int fd,
               std::span<const ByteRange> ranges, std::string_view boundary, bool mayUseSendFile) noexcept;
    std::uint64_t totalBytes() const noexcept { return totalBytes_; }

    // The length of a multipart/byteranges body of these ranges, without starting anything (for HEAD).
    static std::uint64_t multipartLength(std::span<const ByteRange> ranges, std::string_view contentType,
                                         std::uint64_t representationLength, std::string_view boundary) noexcept;

    // Sends what the connection takes now; true when the stream is over (complete or failed), false to run again
    // at the next writable event. The stream may be back in the pool when this returns.
    bool pump() noexcept;
    // The response was aborted: ends the stream, then runs the onAborted handler the response had before start().
    void abort() noexcept;

private:
    friend class BodyStreamPool;
    explicit BodyStream(BodyStreamPool& pool) noexcept : pool_(pool) {}

    // What the body holds from an offset on, up to the end of that piece: bytes in memory (a part's header, the
    // closing delimiter, a cached file's bytes), or fileBytes of the file from fileOffset. Empty past the end.
    struct Piece {
        std::string_view text;
        std::uint64_t fileOffset = 0;
        std::uint64_t fileBytes = 0;
    };
    Piece locate(std::uint64_t offset) noexcept;
    Piece fileBytesAt(std::uint64_t fileOffset, std::uint64_t length) const noexcept;
    // Up to kReadChunkBytes of the file, read into the scratch buffer; empty when the file could not be read as
    // expected (it shrank).
    std::string_view readFile(std::uint64_t fileOffset, std::uint64_t length) noexcept;
    // Ends the stream and closes the connection before the body is complete.
    bool cutShort() noexcept;
    // Whether the file still is the one the response describes.
    bool fileUnchanged() const noexcept;
    void finish() noexcept;

    BodyStreamPool& pool_;
    HttpResponse* response_ = nullptr;
    std::shared_ptr<CachedFile> entry_;  // keeps representation_'s views valid
    // The response's onAborted handler when the stream started (null for a static mount's response).
    HttpResponse::AbortedHandler chainedAbort_;
    Representation representation_;
    int fd_ = -1;
    // The file's bytes go by sendfile(2) until the connection says it cannot (TLS).
    bool sendFromPageCache_ = false;
    std::array<ByteRange, ByteRanges::kMaxRangeSpecs> ranges_{};
    std::size_t rangeCount_ = 0;
    char boundary_[kBoundaryBytes] = {};
    std::uint64_t totalBytes_ = 0;
};

// The streams of one App: each kept after its first use; and the scratch buffer files are read into.
class BodyStreamPool {
public:
    BodyStreamPool();
    ~BodyStreamPool();
    BodyStreamPool(const BodyStreamPool&) = delete;
    BodyStreamPool& operator=(const BodyStreamPool&) = delete;

    // A stream that is not in use (allocates only when every stream made so far is in use).
    BodyStream& acquire();
    void release(BodyStream& stream) noexcept;
    char* scratch() noexcept { return scratch_.get(); }
    // Streams sending right now.
    std::size_t active() const noexcept { return all_.size() - free_.size(); }

private:
    std::vector<std::unique_ptr<BodyStream>> all_;
    std::vector<BodyStream*> free_;
    std::unique_ptr<char[]> scratch_;
};

}  // namespace loopwire::files
