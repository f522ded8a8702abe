#include "HttpError.h"

namespace loopwire {

namespace {

struct ErrorInfo {
    std::uint16_t status;
    std::string_view name;
    std::string_view response;
};

// The body repeats the reason phrase so that a person reading the reply in a terminal sees why.
constexpr std::string_view k400 =
    "HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n"
    "Bad Request";
constexpr std::string_view k414 =
    "HTTP/1.1 414 URI Too Long\r\nContent-Length: 12\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n"
    "URI Too Long";
constexpr std::string_view k431 =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 31\r\nConnection: close\r\n"
    "Content-Type: text/plain\r\n\r\nRequest Header Fields Too Large";
constexpr std::string_view k505 =
    "HTTP/1.1 505 HTTP Version Not Supported\r\nContent-Length: 26\r\nConnection: close\r\n"
    "Content-Type: text/plain\r\n\r\nHTTP Version Not Supported";

constexpr ErrorInfo infoOf(HttpError error) noexcept {
    switch (error) {
        case HttpError::None:
            return {0, "none", {}};
        case HttpError::BadRequestLine:
            return {400, "bad-request-line", k400};
        case HttpError::BadMethod:
            return {400, "bad-method", k400};
        case HttpError::BadTarget:
            return {400, "bad-target", k400};
        case HttpError::TargetTooLong:
            return {414, "target-too-long", k414};
        case HttpError::UnsupportedVersion:
            return {505, "unsupported-version", k505};
        case HttpError::HeaderSectionTooLarge:
            return {431, "header-section-too-large", k431};
        case HttpError::TooManyHeaders:
            return {431, "too-many-headers", k431};
        case HttpError::BadHeaderName:
            return {400, "bad-header-name", k400};
        case HttpError::BadHeaderValue:
            return {400, "bad-header-value", k400};
        case HttpError::ObsoleteLineFolding:
            return {400, "obsolete-line-folding", k400};
        case HttpError::BareLineEnding:
            return {400, "bare-line-ending", k400};
        case HttpError::MissingHost:
            return {400, "missing-host", k400};
        case HttpError::RepeatedHost:
            return {400, "repeated-host", k400};
        case HttpError::BadContentLength:
            return {400, "bad-content-length", k400};
        case HttpError::ContentLengthWithChunked:
            return {400, "content-length-with-chunked", k400};
        case HttpError::BadTransferEncoding:
            return {400, "bad-transfer-encoding", k400};
        case HttpError::BadChunkSize:
            return {400, "bad-chunk-size", k400};
        case HttpError::ChunkSizeOverflow:
            return {400, "chunk-size-overflow", k400};
        case HttpError::ChunkExtensionTooLong:
            return {400, "chunk-extension-too-long", k400};
        case HttpError::BadChunkExtension:
            return {400, "bad-chunk-extension", k400};
        case HttpError::BadChunkTerminator:
            return {400, "bad-chunk-terminator", k400};
        case HttpError::TrailerSectionTooLarge:
            return {431, "trailer-section-too-large", k431};
        case HttpError::BadTrailer:
            return {400, "bad-trailer", k400};
    }
    return {400, "unknown", k400};
}

}  // namespace

std::uint16_t statusFor(HttpError error) noexcept { return infoOf(error).status; }

std::string_view nameOf(HttpError error) noexcept { return infoOf(error).name; }

std::string_view cannedResponseFor(HttpError error) noexcept { return infoOf(error).response; }

}  // namespace loopwire
