#include "BodyStream.h"

#include <loopwire/HttpResponse.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

char* appendDecimal(char* out, std::uint64_t value) noexcept {
    char digits[20];
    char* at = digits + sizeof digits;
    do {
        *--at = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    return appendText(out, std::string_view(at, static_cast<std::size_t>(digits + sizeof digits - at)));
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
    at = appendText(at, "\r\nContent-Range: bytes ");
    at = appendDecimal(at, range.first);
    *at++ = '-';
    at = appendDecimal(at, range.last);
    *at++ = '/';
    at = appendDecimal(at, representationLength);
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

void BodyStream::start(HttpResponse& response, std::shared_ptr<CachedFile> entry, int fd,
                       std::span<const ByteRange> ranges, std::string_view boundary) noexcept {
    response_ = &response;
    entry_ = std::move(entry);
    fd_ = fd;
    rangeCount_ = std::min(ranges.size(), ranges_.size());
    std::copy_n(ranges.begin(), rangeCount_, ranges_.begin());
    const std::size_t boundaryBytes = std::min(boundary.size(), kBoundaryBytes);
    std::memcpy(boundary_, boundary.data(), boundaryBytes);
    if (rangeCount_ == 1) {
        totalBytes_ = ranges_[0].length();
    } else {
        totalBytes_ = multipartLength({ranges_.data(), rangeCount_}, entry_->contentType, entry_->identity.size,
                                      {boundary_, kBoundaryBytes});
    }
    response.onAborted([this] { abort(); });
    response.onWritable([this](std::uint64_t) { return pump(); });
}

bool BodyStream::pump() noexcept {
    if (fd_ >= 0 && !fileUnchanged()) {
        // Sending on would mix two versions of the file under one set of validators: cut the body short instead.
        HttpResponse* response = response_;
        finish();
        response->close();
        return true;
    }
    while (true) {
        const std::uint64_t offset = response_->getWriteOffset();
        const std::string_view bytes = produce(offset);
        if (bytes.empty()) {
            HttpResponse* response = response_;
            finish();
            response->close();
            return true;
        }
        auto [ok, done] = response_->tryEnd(bytes, totalBytes_);
        if (done) {
            finish();
            return true;
        }
        if (!ok) return false;
    }
}

void BodyStream::abort() noexcept { finish(); }

std::string_view BodyStream::produce(std::uint64_t offset) noexcept {
    if (rangeCount_ == 1) {
        const ByteRange& range = ranges_[0];
        return readFile(range.first + offset, range.length() - offset);
    }
    const std::string_view boundary(boundary_, kBoundaryBytes);
    char* scratch = pool_.scratch();
    std::uint64_t pieceStart = 0;
    for (std::size_t i = 0; i < rangeCount_; ++i) {
        const ByteRange& range = ranges_[i];
        // The header is made in the scratch buffer's tail, so that it never overlaps a file read into its head.
        char* header = scratch + kReadChunkBytes;
        const std::size_t headerBytes =
            formatPartHeader(header, range, entry_->contentType, entry_->identity.size, boundary);
        if (offset < pieceStart + headerBytes) {
            const std::size_t skip = static_cast<std::size_t>(offset - pieceStart);
            return {header + skip, headerBytes - skip};
        }
        pieceStart += headerBytes;
        if (offset < pieceStart + range.length()) {
            const std::uint64_t into = offset - pieceStart;
            return readFile(range.first + into, range.length() - into);
        }
        pieceStart += range.length();
    }
    char* closing = scratch + kReadChunkBytes;
    const std::size_t closingBytes = formatClosingDelimiter(closing, boundary);
    if (offset >= pieceStart + closingBytes) return {};
    const std::size_t skip = static_cast<std::size_t>(offset - pieceStart);
    return {closing + skip, closingBytes - skip};
}

std::string_view BodyStream::readFile(std::uint64_t fileOffset, std::uint64_t length) noexcept {
    if (entry_->bodyInMemory) {
        if (fileOffset >= entry_->body.size()) return {};
        return std::string_view(entry_->body)
            .substr(static_cast<std::size_t>(fileOffset), static_cast<std::size_t>(length));
    }
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
    return {into, got};
}

bool BodyStream::fileUnchanged() const noexcept {
    struct stat status;
    return ::fstat(fd_, &status) == 0 && FileIdentity::of(status) == entry_->identity;
}

void BodyStream::finish() noexcept {
    if (response_ == nullptr) return;
    response_ = nullptr;
    entry_.reset();
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
