// An HTTP/2 request's fields made into a RequestHead; see RequestHeadBuilder.h.
//
// Names that came from the static table (field.nameId set) are known to be valid and lower-case, so only literal
// names are checked byte by byte, and pseudo-headers are told apart by their static index when they have one.
#include "RequestHeadBuilder.h"

#include "http/HttpSyntax.h"

#include <cstring>

namespace loopwire::h2 {

std::string_view describe(RequestFieldError error) noexcept {
    switch (error) {
        case RequestFieldError::None:
            return "none";
        case RequestFieldError::TooManyFields:
            return "too many header fields";
        case RequestFieldError::BadName:
            return "invalid field name";
        case RequestFieldError::BadValue:
            return "invalid field value";
        case RequestFieldError::ConnectionSpecific:
            return "connection-specific field";
        case RequestFieldError::BadTe:
            return "te other than trailers";
        case RequestFieldError::PseudoAfterRegular:
            return "pseudo-header after a regular field";
        case RequestFieldError::UnknownPseudo:
            return "unknown pseudo-header";
        case RequestFieldError::RepeatedPseudo:
            return "repeated pseudo-header";
        case RequestFieldError::MissingPseudo:
            return "missing pseudo-header";
        case RequestFieldError::BadPath:
            return "invalid :path";
        case RequestFieldError::BadMethod:
            return "invalid :method";
        case RequestFieldError::BadContentLength:
            return "invalid content-length";
        case RequestFieldError::HostMismatch:
            return "host differs from :authority";
        case RequestFieldError::CookieTooLong:
            return "cookies too long";
    }
    return "unknown";
}

namespace {

constexpr std::string_view kCookieSeparator = "; ";

// RFC 9113 section 8.2.1: no byte 0x00-0x20, no upper case, nothing from 0x7f; a colon only first (pseudo-headers
// are told apart before this is called).
bool isValidName(std::string_view name) noexcept {
    if (name.empty()) return false;
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7f || (byte >= 'A' && byte <= 'Z') || byte == ':') return false;
    }
    return true;
}

bool isValidValue(std::string_view value) noexcept {
    if (!value.empty()) {
        const char first = value.front();
        const char last = value.back();
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') return false;
    }
    return http_syntax::hasNoLineBreakOrNul(value);
}

// A request-target's bytes: visible ASCII and obs-text, as the HTTP/1.1 parser takes them.
bool isValidTarget(std::string_view target) noexcept {
    for (const char c : target) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte == 0x7f) return false;
    }
    return true;
}

bool parseLength(std::string_view text, std::uint64_t& value) noexcept {
    if (text.empty() || text.size() > 19) return false;  // 19 digits cannot overflow 64 bits
    value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

}  // namespace

void RequestHeadBuilder::begin(RequestHead& head, char* scratch, std::size_t scratchBytes,
                               bool extendedConnect) noexcept {
    head_ = &head;
    head.method = {};
    head.target = {};
    head.path = {};
    head.query = {};
    head.httpMinor = 1;
    head.framing = BodyFraming::None;
    head.contentLength = 0;
    head.keepAlive = true;
    head.expectContinue = false;
    head.upgrade = false;
    head.headerCount = 0;
    scratch_ = scratch;
    scratchBytes_ = scratchBytes;
    authority_ = {};
    scheme_ = {};
    protocol_ = {};
    contentLength_ = 0;
    cookieIndex_ = -1;
    hostIndex_ = -1;
    error_ = RequestFieldError::None;
    hasMethod_ = hasPath_ = hasAuthority_ = hasScheme_ = hasProtocol_ = false;
    regularSeen_ = hasContentLength_ = cookieInScratch_ = false;
    extendedConnect_ = extendedConnect;
}

RequestFieldError RequestHeadBuilder::add(const DecodedField& field) noexcept {
    if (error_ != RequestFieldError::None) return error_;
    if (!field.name.empty() && field.name[0] == ':') {
        if (regularSeen_) return fail(RequestFieldError::PseudoAfterRegular);
        return addPseudo(field);
    }
    regularSeen_ = true;
    return addRegular(field);
}

RequestFieldError RequestHeadBuilder::addPseudo(const DecodedField& field) noexcept {
    StaticName name = field.nameId;
    if (name == StaticName::None) {
        if (field.name == ":method")
            name = StaticName::Method;
        else if (field.name == ":path")
            name = StaticName::Path;
        else if (field.name == ":scheme")
            name = StaticName::Scheme;
        else if (field.name == ":authority")
            name = StaticName::Authority;
        else if (field.name == ":status")
            name = StaticName::Status;
        else if (field.name == ":protocol" && extendedConnect_) {
            if (hasProtocol_) return fail(RequestFieldError::RepeatedPseudo);
            if (field.value.empty() || !isValidValue(field.value)) return fail(RequestFieldError::BadValue);
            hasProtocol_ = true;
            protocol_ = field.value;
            return RequestFieldError::None;
        } else {
            return fail(RequestFieldError::UnknownPseudo);
        }
    }
    if (!isValidValue(field.value)) return fail(RequestFieldError::BadValue);
    switch (name) {
        case StaticName::Method:
            if (hasMethod_) return fail(RequestFieldError::RepeatedPseudo);
            if (!http_syntax::isToken(field.value)) return fail(RequestFieldError::BadMethod);
            hasMethod_ = true;
            head_->method = field.value;
            return RequestFieldError::None;
        case StaticName::Path:
            if (hasPath_) return fail(RequestFieldError::RepeatedPseudo);
            if (field.value.empty() || !isValidTarget(field.value)) return fail(RequestFieldError::BadPath);
            hasPath_ = true;
            head_->target = field.value;
            return RequestFieldError::None;
        case StaticName::Scheme:
            if (hasScheme_) return fail(RequestFieldError::RepeatedPseudo);
            hasScheme_ = true;
            scheme_ = field.value;
            return RequestFieldError::None;
        case StaticName::Authority:
            if (hasAuthority_) return fail(RequestFieldError::RepeatedPseudo);
            hasAuthority_ = true;
            authority_ = field.value;
            return RequestFieldError::None;
        default:
            return fail(RequestFieldError::UnknownPseudo);  // :status, a response's
    }
}

RequestFieldError RequestHeadBuilder::addRegular(const DecodedField& field) noexcept {
    const std::string_view name = field.name;
    if (field.nameId == StaticName::None && !isValidName(name)) return fail(RequestFieldError::BadName);
    if (!isValidValue(field.value)) return fail(RequestFieldError::BadValue);
    switch (name.size()) {
        case 2:
            if (name == "te" && field.value != "trailers") return fail(RequestFieldError::BadTe);
            break;
        case 4:
            if (name == "host") hostIndex_ = head_->headerCount;
            break;
        case 6:
            if (name == "cookie") {
                if (cookieIndex_ >= 0) return joinCookie(field.value);
                cookieIndex_ = head_->headerCount;
            }
            break;
        case 7:
            if (name == "upgrade") return fail(RequestFieldError::ConnectionSpecific);
            break;
        case 10:
            if (name == "connection" || name == "keep-alive") return fail(RequestFieldError::ConnectionSpecific);
            break;
        case 14:
            if (name == "content-length") {
                std::uint64_t length = 0;
                if (!parseLength(field.value, length) || (hasContentLength_ && length != contentLength_))
                    return fail(RequestFieldError::BadContentLength);
                hasContentLength_ = true;
                contentLength_ = length;
            }
            break;
        case 16:
            if (name == "proxy-connection") return fail(RequestFieldError::ConnectionSpecific);
            break;
        case 17:
            if (name == "transfer-encoding") return fail(RequestFieldError::ConnectionSpecific);
            break;
        default:
            break;
    }
    if (head_->headerCount == limits::kMaxHeaderCount) return fail(RequestFieldError::TooManyFields);
    head_->headers[head_->headerCount++] = HttpHeader{name, field.value};
    return RequestFieldError::None;
}

RequestFieldError RequestHeadBuilder::joinCookie(std::string_view value) noexcept {
    HttpHeader& cookie = head_->headers[cookieIndex_];
    const std::size_t joined = cookie.value.size() + kCookieSeparator.size() + value.size();
    if (joined > scratchBytes_) return fail(RequestFieldError::CookieTooLong);
    // The first cookie moves to scratch's start once; later ones are appended after it.
    if (!cookieInScratch_) {
        std::memmove(scratch_, cookie.value.data(), cookie.value.size());
        cookieInScratch_ = true;
    }
    char* end = scratch_ + cookie.value.size();
    std::memcpy(end, kCookieSeparator.data(), kCookieSeparator.size());
    std::memcpy(end + kCookieSeparator.size(), value.data(), value.size());
    cookie.value = std::string_view(scratch_, joined);
    return RequestFieldError::None;
}

RequestFieldError RequestHeadBuilder::finish() noexcept {
    if (error_ != RequestFieldError::None) return error_;
    if (!hasMethod_) return fail(RequestFieldError::MissingPseudo);
    const bool connect = head_->method == "CONNECT";
    if (hasProtocol_ && !connect) return fail(RequestFieldError::UnknownPseudo);
    if (connect && !hasProtocol_) {
        // RFC 9113 section 8.5: only :method and :authority.
        if (hasScheme_ || hasPath_ || !hasAuthority_) return fail(RequestFieldError::MissingPseudo);
        head_->target = authority_;
    } else {
        if (!hasScheme_ || !hasPath_ || (hasProtocol_ && !hasAuthority_)) return fail(RequestFieldError::MissingPseudo);
        const std::string_view target = head_->target;
        if (target[0] != '/' && !(target == "*" && head_->method == "OPTIONS")) return fail(RequestFieldError::BadPath);
    }
    head_->upgrade = connect;
    const std::size_t question = head_->target.find('?');
    head_->path = head_->target.substr(0, question);
    head_->query = question == std::string_view::npos ? std::string_view() : head_->target.substr(question + 1);
    if (hasContentLength_) head_->contentLength = contentLength_;
    if (hasAuthority_) {
        if (hostIndex_ >= 0) {
            if (head_->headers[hostIndex_].value != authority_) return fail(RequestFieldError::HostMismatch);
        } else {
            if (head_->headerCount == limits::kMaxHeaderCount) return fail(RequestFieldError::TooManyFields);
            head_->headers[head_->headerCount++] = HttpHeader{"host", authority_};
        }
    }
    return RequestFieldError::None;
}

}  // namespace loopwire::h2
