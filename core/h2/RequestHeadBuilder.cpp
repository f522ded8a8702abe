// An HTTP/2 request's fields made into a RequestHead; see RequestHeadBuilder.h.
//
// The decoder says what each name is (FieldKind) and whether its value was checked, so a request whose fields come
// from the HPACK tables is built with no name compared and no value scanned; only literals are checked here.
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

// A request-target's bytes: visible ASCII and obs-text, as the HTTP/1.1 parser takes them.
bool isValidTarget(std::string_view target) noexcept {
    for (const char c : target) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte == 0x7f) return false;
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
    // A value the decoder checked (a table's) is not scanned again.
    if (field.valueCheck == ValueCheck::Invalid ||
        (field.valueCheck == ValueCheck::Unchecked && !isValidFieldValue(field.value))) {
        return fail(RequestFieldError::BadValue);
    }
    if (isPseudo(field.kind)) {
        if (regularSeen_) return fail(RequestFieldError::PseudoAfterRegular);
        return addPseudo(field);
    }
    regularSeen_ = true;
    return addRegular(field);
}

RequestFieldError RequestHeadBuilder::addPseudo(const DecodedField& field) noexcept {
    switch (field.kind) {
        case FieldKind::Method:
            if (hasMethod_) return fail(RequestFieldError::RepeatedPseudo);
            if (!http_syntax::isToken(field.value)) return fail(RequestFieldError::BadMethod);
            hasMethod_ = true;
            head_->method = field.value;
            return RequestFieldError::None;
        case FieldKind::Path:
            if (hasPath_) return fail(RequestFieldError::RepeatedPseudo);
            if (field.value.empty() || !isValidTarget(field.value)) return fail(RequestFieldError::BadPath);
            hasPath_ = true;
            head_->target = field.value;
            return RequestFieldError::None;
        case FieldKind::Scheme:
            if (hasScheme_) return fail(RequestFieldError::RepeatedPseudo);
            hasScheme_ = true;
            scheme_ = field.value;
            return RequestFieldError::None;
        case FieldKind::Authority:
            if (hasAuthority_) return fail(RequestFieldError::RepeatedPseudo);
            hasAuthority_ = true;
            authority_ = field.value;
            return RequestFieldError::None;
        case FieldKind::Protocol:
            if (!extendedConnect_) return fail(RequestFieldError::UnknownPseudo);
            if (hasProtocol_) return fail(RequestFieldError::RepeatedPseudo);
            if (field.value.empty()) return fail(RequestFieldError::BadValue);
            hasProtocol_ = true;
            protocol_ = field.value;
            return RequestFieldError::None;
        default:
            return fail(RequestFieldError::UnknownPseudo);  // :status (a response's), or no pseudo-header at all
    }
}

RequestFieldError RequestHeadBuilder::addRegular(const DecodedField& field) noexcept {
    switch (field.kind) {
        case FieldKind::Regular:
            break;
        case FieldKind::BadName:
            return fail(RequestFieldError::BadName);
        case FieldKind::ConnectionSpecific:
            return fail(RequestFieldError::ConnectionSpecific);
        case FieldKind::Te:
            if (field.value != "trailers") return fail(RequestFieldError::BadTe);
            break;
        case FieldKind::Host:
            hostIndex_ = head_->headerCount;
            break;
        case FieldKind::Cookie:
            if (cookieIndex_ >= 0) return joinCookie(field.value);
            cookieIndex_ = head_->headerCount;
            break;
        case FieldKind::ContentLength: {
            const std::optional<std::uint64_t> length = http_syntax::parseContentLength(field.value);
            if (!length || (hasContentLength_ && *length != contentLength_))
                return fail(RequestFieldError::BadContentLength);
            hasContentLength_ = true;
            contentLength_ = *length;
            break;
        }
        default:
            return fail(RequestFieldError::UnknownPseudo);
    }
    if (head_->headerCount == limits::kMaxHeaderCount) return fail(RequestFieldError::TooManyFields);
    head_->headers[head_->headerCount++] = HttpHeader{field.name, field.value};
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

RequestFieldError RequestHeadBuilder::finish(bool bodyFollows) noexcept {
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
    if (bodyFollows && !hasContentLength_ && !connect) {
        if (head_->headerCount == limits::kMaxHeaderCount) return fail(RequestFieldError::TooManyFields);
        head_->headers[head_->headerCount++] = HttpHeader{"transfer-encoding", "chunked"};
    }
    return RequestFieldError::None;
}

}  // namespace loopwire::h2
