#include <loopwire/HttpRequest.h>

#include "HttpParser.h"
#include "Router.h"

#include <algorithm>
#include <cstring>

namespace loopwire {

namespace {

int hexValue(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Percent-decodes in into out (at least in.size() bytes); '+' becomes a space. A '%' not followed by two hex
// digits is kept as it is.
std::size_t percentDecode(std::string_view in, char* out) noexcept {
    std::size_t written = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%' && i + 2 < in.size()) {
            int high = hexValue(in[i + 1]);
            int low = hexValue(in[i + 2]);
            if (high >= 0 && low >= 0) {
                c = static_cast<char>(high * 16 + low);
                i += 2;
            }
        }
        out[written++] = c;
    }
    return written;
}

}  // namespace

std::string_view HttpRequest::getMethod() const noexcept {
    // Lowered on first use rather than for every request: a method is never empty, so a zero length means not yet.
    if (methodLength_ == 0) {
        const std::size_t length = std::min(head_->method.size(), kMaxMethodBytes);
        for (std::size_t i = 0; i < length; ++i) {
            const char c = head_->method[i];
            lowerMethod_[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
        }
        methodLength_ = static_cast<std::uint8_t>(length);
    }
    return {lowerMethod_, methodLength_};
}

std::string_view HttpRequest::getHeader(std::string_view lowerCaseKey) const noexcept {
    return head_->header(lowerCaseKey);
}

std::string_view HttpRequest::getUrl() const noexcept { return head_->path; }

std::string_view HttpRequest::getFullUrl() const noexcept { return head_->target; }

std::string_view HttpRequest::getCaseSensitiveMethod() const noexcept { return head_->method; }

std::string_view HttpRequest::getQuery() const noexcept { return head_->query; }

std::string_view HttpRequest::getQuery(std::string_view key) noexcept {
    std::string_view query = head_->query;
    while (!query.empty()) {
        std::size_t end = query.find('&');
        std::string_view pair = query.substr(0, end);
        query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
        std::size_t equals = pair.find('=');
        std::string_view name = pair.substr(0, equals);
        // A valueless key ("?a") gives an empty view that still points into the query, so it reads as present.
        std::string_view value = equals == std::string_view::npos ? pair.substr(pair.size()) : pair.substr(equals + 1);
        if (name != key) continue;
        if (value.find_first_of("%+") == std::string_view::npos) return value;
        // Decoded values go to the scratch space one after another, so earlier results stay valid; when it is
        // full, it starts over.
        if (scratchBytes_ - scratchUsed_ < value.size()) scratchUsed_ = 0;
        if (scratchBytes_ < value.size()) return value;
        char* out = scratch_ + scratchUsed_;
        std::size_t length = percentDecode(value, out);
        scratchUsed_ += length;
        return {out, length};
    }
    return {};
}

std::string_view HttpRequest::getParameter(std::size_t index) const noexcept {
    return match_ == nullptr ? std::string_view() : match_->parameter(index);
}

std::string_view HttpRequest::getParameter(std::string_view name) const noexcept {
    return match_ == nullptr ? std::string_view() : match_->parameter(name);
}

std::size_t HttpRequest::getParameterCount() const noexcept { return match_ == nullptr ? 0 : match_->parameterCount(); }

std::size_t HttpRequest::headerCount() const noexcept { return head_->headerCount; }

HttpRequest::Header HttpRequest::headerAt(std::size_t index) const noexcept {
    if (index >= head_->headerCount) return {};
    return {head_->headers[index].name, head_->headers[index].value};
}

}  // namespace loopwire
