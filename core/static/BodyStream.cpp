#include "BodyStream.h"

#include "http/ResponseStream.h"
#include "static/ContentRange.h"

#include <loopwire/HttpResponse.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace loopwire::files {

namespace {

// A multipart part's header is at most this long: the delimiter, a Content-Type a MimeTypes entry may hold (they
// are bounded by MimeTypes::kMaxTypeBytes) and a Content-Range of three 20-digit numbers.
constexpr std::size_t kMaxPartHeaderBytes = 512;

char* appendText(char* out, std::string_view text) noexcept {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

// Part i's header: "\r\n--<boundary>\r\nContent-Type: <type>\r\nContent-Range: bytes <first>-<last>/<length>\r\n\r\n".
// Writes it to out (kMaxPartHeaderBytes) and returns its length.
std::size_t formatPartHeader(char* out, const ByteRange& range, std::string_view contentType,
                             std::uint64_t representationLength, std::string_view boundary) noexcept {
    contentType = contentType.substr(0, kMaxPartHeaderBytes - 160);
    char* at = appendText(out, "\r\n--");
    at = appendText(at, boundary);
    at = appendText(at, "\r\nContent-Type: ");
    at = appendText(at, contentType);
    at = appendText(at, "\r\nContent-Range: ");
    at = appendText(at, ContentRange(range, representationLength).text());
    at = appendText(at, "\r\n\r\n");
    return static_cast<std::size_t>(at - out);
}

std::size_t formatClosingDelimiter(char* out, std::string_view boundary) noexcept {
    char* at = appendText(out, "\r\n--");
    at = appendText(at, boundary);
    at = appendText(at, "--\r\n");
    return static_cast<std::size_t>(at - out);
}

}  // namespace

std::uint64_t BodyStream::multipartLength(std::span<const ByteRange> ranges, std::string_view contentType,
                                          std::uint64_t representationLength, std::string_view boundary) noexcept {
    char header[kMaxPartHeaderBytes];
    std::uint64_t total = formatClosingDelimiter(header, boundary);
    for (const ByteRange& range : ranges) {
        total += formatPartHeader(header, range, contentType, representationLength, boundary) + range.length();
    }
    return total;
}

void BodyStream::start(HttpResponse& response, std::shared_ptr<CachedFile> entry, const Representation& representation,
                       int fd, std::span<const ByteRange> ranges, std::string_view boundary,
                       bool mayUseSendFile) noexcept {
    response_ = &response;
    entry_ = std::move(entry);
    representation_ = representation;
    fd_ = fd;
    rangeCount_ = std::min(ranges.size(), ranges_.size());
    std::copy_n(ranges.begin(), rangeCount_, ranges_.begin());
    const std::size_t boundaryBytes = std::min(boundary.size(), kBoundaryBytes);
    std::memcpy(boundary_, boundary.data(), boundaryBytes);
    if (rangeCount_ == 1) {
        totalBytes_ = ranges_[0].length();
    } else {
        totalBytes_ = multipartLength({ranges_.data(), rangeCount_}, representation_.contentType,
                                      representation_.length, {boundary_, kBoundaryBytes});
    }
    sendFromPageCache_ = fd_ >= 0 && mayUseSendFile;
    // A handler's own onAborted (HttpResponse::sendFile after an await) still runs if the peer leaves before the end.
    chainedAbort_ = std::move(any_response::abortedHandler(response));
    response.onAborted([this] { abort(); });
    response.onWritable([this](std::uint64_t) { return pump(); });
}

bool BodyStream::pump() noexcept {
    if (fd_ >= 0 && !fileUnchanged()) return cutShort();
    while (true) {
        const Piece piece = locate(response_->getWriteOffset());
        std::pair<bool, bool> progress;
        if (piece.fileBytes > 0 && sendFromPageCache_) {
            std::optional<std::pair<bool, bool>> sent =
                response_->tryEndFromFile(fd_, piece.fileOffset, piece.fileBytes, totalBytes_);
            if (!sent) {
                // This connection cannot (TLS): the file is read and written from here on.
                sendFromPageCache_ = false;
                continue;
            }
            progress = *sent;
        } else {
            const std::string_view bytes =
                piece.fileBytes > 0 ? readFile(piece.fileOffset, piece.fileBytes) : piece.text;
            if (bytes.empty()) return cutShort();
            progress = response_->tryEnd(bytes, totalBytes_);
        }
        if (progress.second) {
            finish();
            return true;
        }
        if (!progress.first) return false;
    }
}

bool BodyStream::cutShort() noexcept {
    // Sending on would mix two versions of the file under one set of validators, or the file could not be read:
    // the client sees a body shorter than its Content-Length rather than a wrong one.
    HttpResponse* response = response_;
    HttpResponse::AbortedHandler chained = std::move(chainedAbort_);
    finish();
    response->close();
    if (chained) chained();
    return true;
}

void BodyStream::abort() noexcept {
    HttpResponse::AbortedHandler chained = std::move(chainedAbort_);
    finish();
    if (chained) chained();
}

BodyStream::Piece BodyStream::locate(std::uint64_t offset) noexcept {
    if (rangeCount_ == 1) return fileBytesAt(ranges_[0].first + offset, ranges_[0].length() - offset);
    const std::string_view boundary(boundary_, kBoundaryBytes);
    // Headers are made in the scratch buffer's tail, so that they never overlap a file read into its head.
    char* text = pool_.scratch() + kReadChunkBytes;
    std::uint64_t pieceStart = 0;
    for (std::size_t i = 0; i < rangeCount_; ++i) {
        const ByteRange& range = ranges_[i];
        const std::size_t headerBytes =
            formatPartHeader(text, range, representation_.contentType, representation_.length, boundary);
        if (offset < pieceStart + headerBytes) {
            const auto skip = static_cast<std::size_t>(offset - pieceStart);
            return Piece{{text + skip, headerBytes - skip}, 0, 0};
        }
        pieceStart += headerBytes;
        if (offset < pieceStart + range.length()) {
            const std::uint64_t into = offset - pieceStart;
            return fileBytesAt(range.first + into, range.length() - into);
        }
        pieceStart += range.length();
    }
    const std::size_t closingBytes = formatClosingDelimiter(text, boundary);
    if (offset >= pieceStart + closingBytes) return Piece{};
    const auto skip = static_cast<std::size_t>(offset - pieceStart);
    return Piece{{text + skip, closingBytes - skip}, 0, 0};
}

BodyStream::Piece BodyStream::fileBytesAt(std::uint64_t fileOffset, std::uint64_t length) const noexcept {
    if (representation_.inMemory) {
        if (fileOffset >= representation_.body.size()) return Piece{};
        return Piece{
            representation_.body.substr(static_cast<std::size_t>(fileOffset), static_cast<std::size_t>(length)), 0, 0};
    }
    return Piece{{}, fileOffset, length};
}

std::string_view BodyStream::readFile(std::uint64_t fileOffset, std::uint64_t length) noexcept {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, kReadChunkBytes));
    char* into = pool_.scratch();
    std::size_t got = 0;
    while (got < want) {
        ssize_t n = ::pread(fd_, into + got, want - got, static_cast<off_t>(fileOffset + got));
        if (n < 0 && errno == EINTR) continue;
        // The file ended early (it was truncated) or cannot be read: the caller cuts the body short.
        if (n <= 0) return {};
        got += static_cast<std::size_t>(n);
    }
    // Checked after the read, not only when a pump starts: a pump sends many chunks, and a write that lands between
    // two of them would otherwise put the new file's bytes into a body of the old one's length and validators.
    // write(2) updates the modification time before it copies its bytes, so bytes read while the identity still
    // holds are the response's file.
    if (!fileUnchanged()) return {};
    return {into, got};
}

bool BodyStream::fileUnchanged() const noexcept {
    struct stat status;
    return ::fstat(fd_, &status) == 0 && FileIdentity::of(status) == *representation_.identity;
}

void BodyStream::finish() noexcept {
    if (response_ == nullptr) return;
    response_ = nullptr;
    representation_ = {};
    entry_.reset();
    chainedAbort_ = nullptr;
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    pool_.release(*this);
}

BodyStreamPool::BodyStreamPool() : scratch_(new char[BodyStream::kReadChunkBytes + kMaxPartHeaderBytes]) {}

BodyStreamPool::~BodyStreamPool() = default;

BodyStream& BodyStreamPool::acquire() {
    if (free_.empty()) {
        all_.push_back(std::unique_ptr<BodyStream>(new BodyStream(*this)));
        free_.reserve(all_.size());
        return *all_.back();
    }
    BodyStream* stream = free_.back();
    free_.pop_back();
    return *stream;
}

void BodyStreamPool::release(BodyStream& stream) noexcept { free_.push_back(&stream); }

}  // namespace loopwire::files
