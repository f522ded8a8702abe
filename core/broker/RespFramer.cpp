#include "RespFramer.h"

#include <algorithm>
#include <cstring>

namespace loopwire::resp {

namespace {

// Parses a decimal integer (an optional '-', then digits) that fills [begin, end). False when it is not one or
// does not fit in 64 bits.
bool parseInteger(const char* begin, const char* end, std::int64_t& value) noexcept {
    bool negative = begin != end && *begin == '-';
    if (negative || (begin != end && *begin == '+')) ++begin;
    if (begin == end) return false;
    std::uint64_t magnitude = 0;
    for (const char* digit = begin; digit != end; ++digit) {
        if (*digit < '0' || *digit > '9') return false;
        if (magnitude > (UINT64_MAX - 9) / 10) return false;
        magnitude = magnitude * 10 + static_cast<std::uint64_t>(*digit - '0');
    }
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1 : 0)) return false;
    value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return true;
}

bool startsValue(char type) noexcept {
    switch (type) {
        case '+':
        case '-':
        case ':':
        case '$':
        case '*':
        case '_':
        case '#':
        case ',':
        case '(':
        case '!':
        case '=':
        case '%':
        case '~':
        case '>':
            return true;
        default:
            return false;
    }
}

}  // namespace

std::string_view nameOf(RespError error) noexcept {
    switch (error) {
        case RespError::None:
            return "none";
        case RespError::UnknownType:
            return "unknown-type";
        case RespError::BadLength:
            return "bad-length";
        case RespError::BadInteger:
            return "bad-integer";
        case RespError::BadBoolean:
            return "bad-boolean";
        case RespError::MissingCrlf:
            return "missing-crlf";
        case RespError::LineTooLong:
            return "line-too-long";
        case RespError::BulkTooLong:
            return "bulk-too-long";
        case RespError::TooManyElements:
            return "too-many-elements";
        case RespError::TooDeep:
            return "too-deep";
    }
    return "unknown";
}

RespResult RespFramer::next(std::string_view bytes) noexcept {
    const char* data = bytes.data();
    const std::size_t size = bytes.size();
    for (;;) {
        if (offset_ >= size) return {};
        // The element's header line: its type byte, then at most kMaxLineBytes of text, then CRLF.
        if (!startsValue(data[offset_])) return fail(RespError::UnknownType);
        const char* lineBegin = data + offset_ + 1;
        const std::size_t available = size - offset_;
        const auto* lf =
            static_cast<const char*>(std::memchr(data + offset_, '\n', std::min(available, kMaxLineBytes + 3)));
        if (lf == nullptr) {
            if (available > kMaxLineBytes + 2 || (available == kMaxLineBytes + 2 && data[size - 1] != '\r')) {
                return fail(RespError::LineTooLong);
            }
            return {};
        }
        if (lf == data + offset_ || lf[-1] != '\r') return fail(RespError::MissingCrlf);
        const char* lineEnd = lf - 1;
        std::size_t elementEnd = static_cast<std::size_t>(lf + 1 - data);
        std::int64_t children = 0;
        switch (data[offset_]) {
            case '+':  // simple string
            case '-':  // simple error
            case ',':  // double
            case '(':  // big number
                break;
            case '_':  // null
                if (lineEnd != lineBegin) return fail(RespError::BadLength);
                break;
            case '#':  // boolean
                if (lineEnd - lineBegin != 1 || (*lineBegin != 't' && *lineBegin != 'f')) {
                    return fail(RespError::BadBoolean);
                }
                break;
            case ':': {  // integer
                std::int64_t value = 0;
                if (!parseInteger(lineBegin, lineEnd, value)) return fail(RespError::BadInteger);
                break;
            }
            case '$':    // bulk string
            case '!':    // bulk error
            case '=': {  // verbatim string
                std::int64_t length = 0;
                if (!parseInteger(lineBegin, lineEnd, length) || length < -1) return fail(RespError::BadLength);
                if (length > kMaxBulkBytes) return fail(RespError::BulkTooLong);
                if (length >= 0) {
                    const std::size_t payloadEnd = elementEnd + static_cast<std::size_t>(length);
                    if (size < payloadEnd + 2) return {};
                    if (data[payloadEnd] != '\r' || data[payloadEnd + 1] != '\n') {
                        return fail(RespError::MissingCrlf);
                    }
                    elementEnd = payloadEnd + 2;
                }
                break;
            }
            case '*':    // array
            case '~':    // set
            case '>':    // push
            case '%': {  // map: two elements per entry
                std::int64_t count = 0;
                if (!parseInteger(lineBegin, lineEnd, count) || count < -1) return fail(RespError::BadLength);
                if (count > kMaxAggregateElements) return fail(RespError::TooManyElements);
                children = data[offset_] == '%' ? count * 2 : count;
                break;
            }
            default:
                return fail(RespError::UnknownType);
        }
        offset_ = elementEnd;
        if (children > 0) {
            if (depth_ == kMaxDepth) return fail(RespError::TooDeep);
            remaining_[depth_++] = children;
            continue;
        }
        // The element is whole: so is every aggregate it was the last element of.
        while (depth_ > 0 && --remaining_[depth_ - 1] == 0)
            --depth_;
        if (depth_ == 0) {
            const std::size_t consumed = offset_;
            reset();
            return {RespStatus::Complete, consumed, RespError::None};
        }
    }
}

}  // namespace loopwire::resp
