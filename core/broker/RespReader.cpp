#include "RespReader.h"

#include <cstring>

namespace loopwire::resp {

namespace {

// The framer has checked every integer of a whole reply; this reads one without checking again, but never past
// end.
std::int64_t readInteger(const char* begin, const char* end) noexcept {
    bool negative = begin != end && *begin == '-';
    if (negative || (begin != end && *begin == '+')) ++begin;
    std::uint64_t magnitude = 0;
    for (; begin != end && *begin >= '0' && *begin <= '9'; ++begin)
        magnitude = magnitude * 10 + static_cast<std::uint64_t>(*begin - '0');
    return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

bool isBulk(char type) noexcept { return type == '$' || type == '!' || type == '='; }

}  // namespace

const char* RespReader::readHeader(RespValue& value) const noexcept {
    if (position_ >= end_) return nullptr;
    const auto* lf = static_cast<const char*>(std::memchr(position_, '\n', static_cast<std::size_t>(end_ - position_)));
    if (lf == nullptr || lf == position_) return nullptr;
    const char* lineBegin = position_ + 1;
    const char* lineEnd = lf - 1;
    const char* after = lf + 1;
    const char type = *position_;
    value = RespValue{};
    value.type = static_cast<RespType>(type);
    value.end_ = end_;
    if (isBulk(type)) {
        value.integer = readInteger(lineBegin, lineEnd);
        if (value.integer < 0) return after;
        const auto length = static_cast<std::size_t>(value.integer);
        if (static_cast<std::size_t>(end_ - after) < length + 2) return nullptr;
        value.text = {after, length};
        if (type == '=' && length >= 4) value.text.remove_prefix(4);
        return after + length + 2;
    }
    switch (type) {
        case '*':
        case '~':
        case '>':
        case '%':
            value.integer = readInteger(lineBegin, lineEnd) * (type == '%' ? 2 : 1);
            value.children_ = after;
            return after;
        case ':':
            value.integer = readInteger(lineBegin, lineEnd);
            break;
        case '#':
            value.integer = lineBegin != lineEnd && *lineBegin == 't' ? 1 : 0;
            break;
        case '+':
        case '-':
        case ',':
        case '(':
        case '_':
            break;
        default:
            return nullptr;
    }
    value.text = {lineBegin, static_cast<std::size_t>(lineEnd - lineBegin)};
    return after;
}

const char* RespReader::skip(const char* at) const noexcept {
    std::int64_t pending = 1;
    RespReader cursor(at, end_, 1);
    while (pending > 0) {
        RespValue value;
        const char* after = cursor.readHeader(value);
        if (after == nullptr) return nullptr;
        --pending;
        if (value.isAggregate() && value.integer > 0) pending += value.integer;
        cursor.position_ = after;
    }
    return cursor.position_;
}

bool RespReader::next(RespValue& value) noexcept {
    if (remaining_ <= 0) return false;
    const char* after = readHeader(value);
    if (after == nullptr) {
        remaining_ = 0;
        return false;
    }
    if (value.isAggregate() && value.integer > 0) after = skip(position_);
    if (after == nullptr) {
        remaining_ = 0;
        return false;
    }
    position_ = after;
    --remaining_;
    return true;
}

}  // namespace loopwire::resp
