// RequestHeadBuilder: makes an HTTP/2 request's fields (RFC 9113 section 8.3) into the RequestHead the router and
// HttpRequest read, so that a stream's request looks to a handler as an HTTP/1.1 request does.
//
// Contract
// - begin(head, ...) for each header block of a request; add() each field HpackDecoder yields, in order; finish()
//   at the block's end. The first error sticks: later add() calls do nothing and finish() returns it.
// - What the head gets: method, target (:path, or :authority for CONNECT), path and query split at '?', every
//   regular field in order, and a `host` field holding :authority when the request has no Host (a Host that
//   differs from :authority is malformed). Several cookie fields are joined into one with "; " (RFC 9113 section
//   8.2.3), written to the scratch given to begin(). content-length, when present, in contentLength(). A request
//   whose body follows (finish(true): its HEADERS did not end the stream) without content-length, CONNECT aside,
//   gets `transfer-encoding: chunked`, as a body of unknown length has on HTTP/1.1: frameworks written for
//   uWebSockets.js look for one of the two before they read a body. httpMinor is 1, keepAlive true, framing None
//   (the stream's frames carry the body).
// - Errors: malformed requests (RFC 9113 section 8.1.1: a stream error PROTOCOL_ERROR, never a response) are every
//   value but TooManyFields, which is answered 431 as HTTP/1.1 answers it. Malformed are: a name with upper case,
//   a byte below 0x21 or from 0x7f, or a colon past its start; a value with NUL, CR or LF, or starting or ending with
//   SP or HTAB; a connection-specific field (connection, keep-alive, proxy-connection, transfer-encoding, upgrade);
//   te other than "trailers"; a pseudo-header after a regular field, unknown, repeated, or :status; a missing
//   :method, :scheme or :path (or, for CONNECT, :scheme or :path present, :authority missing); an empty :path or one
//   that starts neither with '/' nor is '*' for OPTIONS; a method that is not a token; a content-length that is not
//   a number or differs between fields. :protocol (RFC 8441) is taken only when begin() allows extended CONNECT,
//   and only with CONNECT; it then requires :scheme and :path as well.
// Pure: no allocation, no I/O.
#pragma once

#include "HpackDecoder.h"
#include "http/HttpParser.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace loopwire::h2 {

enum class RequestFieldError : std::uint8_t {
    None,
    TooManyFields,  // more than limits::kMaxHeaderCount regular fields: 431
    BadName,
    BadValue,
    ConnectionSpecific,
    BadTe,
    PseudoAfterRegular,
    UnknownPseudo,
    RepeatedPseudo,
    MissingPseudo,
    BadPath,
    BadMethod,
    BadContentLength,
    HostMismatch,
    CookieTooLong,  // the joined cookies do not fit scratch (they exceed the header list limit)
};

std::string_view describe(RequestFieldError error) noexcept;

class RequestHeadBuilder {
public:
    // scratch: for the joined cookies; scratchBytes at least the header list limit.
    void begin(RequestHead& head, char* scratch, std::size_t scratchBytes, bool extendedConnect) noexcept;
    RequestFieldError add(const DecodedField& field) noexcept;
    // bodyFollows: the HEADERS frame did not end the stream.
    RequestFieldError finish(bool bodyFollows) noexcept;

    std::optional<std::uint64_t> contentLength() const noexcept {
        return hasContentLength_ ? std::optional<std::uint64_t>(contentLength_) : std::nullopt;
    }
    // :protocol of an extended CONNECT (RFC 8441), or empty.
    std::string_view protocol() const noexcept { return protocol_; }
    // :scheme as sent.
    std::string_view scheme() const noexcept { return scheme_; }

private:
    RequestFieldError addPseudo(const DecodedField& field) noexcept;
    RequestFieldError addRegular(const DecodedField& field) noexcept;
    RequestFieldError joinCookie(std::string_view value) noexcept;
    RequestFieldError fail(RequestFieldError error) noexcept { return error_ = error; }

    RequestHead* head_ = nullptr;
    char* scratch_ = nullptr;
    std::size_t scratchBytes_ = 0;
    std::string_view authority_;
    std::string_view scheme_;
    std::string_view protocol_;
    std::uint64_t contentLength_ = 0;
    std::int32_t cookieIndex_ = -1;  // the head's cookie field, once there is one
    std::int32_t hostIndex_ = -1;
    RequestFieldError error_ = RequestFieldError::None;
    bool hasMethod_ = false;
    bool hasPath_ = false;
    bool hasAuthority_ = false;
    bool hasScheme_ = false;
    bool hasProtocol_ = false;
    bool regularSeen_ = false;
    bool hasContentLength_ = false;
    bool cookieInScratch_ = false;
    bool extendedConnect_ = false;
};

}  // namespace loopwire::h2
