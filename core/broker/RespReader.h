// RespReader: reads the values of a reply RespFramer found whole, in place: no copy, no allocation.
//
//     RespReader reader(reply);          // the `consumed` bytes of a Complete result
//     RespValue value;
//     if (reader.next(value) && value.type == RespType::Push) {
//         RespReader fields = value.elements();
//         ...
//     }
//
// next() gives the values of one level one after the other, skipping over each one's elements; elements() of an
// aggregate reads the level below. Given bytes the framer did not pass whole, it stops (next() returns false)
// rather than read past them. Views point into the reply's bytes and live as long as they do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::resp {

// The type byte of each RESP2 and RESP3 value.
enum class RespType : char {
    SimpleString = '+',
    SimpleError = '-',
    Integer = ':',
    BulkString = '$',
    Array = '*',
    Null = '_',
    Boolean = '#',
    Double = ',',
    BigNumber = '(',
    BulkError = '!',
    VerbatimString = '=',
    Map = '%',
    Set = '~',
    Push = '>',
};

class RespReader;

struct RespValue {
    RespType type = RespType::Null;
    // Strings and errors: their bytes (a verbatim string's without its "txt:" format); doubles and big numbers:
    // their text; integers: their digits.
    std::string_view text;
    // Integer: its value; Boolean: 1 or 0; an aggregate: its element count (a map's: twice its entries); a RESP2
    // null bulk string or array: -1.
    std::int64_t integer = 0;

    bool isNull() const noexcept { return type == RespType::Null || integer < 0; }
    bool isError() const noexcept { return type == RespType::SimpleError || type == RespType::BulkError; }
    bool isString() const noexcept {
        return type == RespType::SimpleString || type == RespType::BulkString || type == RespType::VerbatimString;
    }
    bool isAggregate() const noexcept {
        return type == RespType::Array || type == RespType::Map || type == RespType::Set || type == RespType::Push;
    }
    // The elements of an aggregate (none for other values).
    RespReader elements() const noexcept;

private:
    friend class RespReader;
    const char* children_ = nullptr;  // an aggregate's first element
    const char* end_ = nullptr;       // the end of the reply
};

class RespReader {
public:
    // Reads `count` values from the start of bytes.
    explicit RespReader(std::string_view bytes, std::int64_t count = 1) noexcept
        : position_(bytes.data()), end_(bytes.data() + bytes.size()), remaining_(count) {}

    // The next value, false when there is none left (or the bytes end early).
    bool next(RespValue& value) noexcept;
    std::int64_t remaining() const noexcept { return remaining_; }

private:
    friend struct RespValue;
    RespReader(const char* position, const char* end, std::int64_t count) noexcept
        : position_(position), end_(end), remaining_(count) {}
    // Reads the value at position_ into value and returns where its header line ends, or null.
    const char* readHeader(RespValue& value) const noexcept;
    // Where the value starting at `at` ends (its elements included), or null.
    const char* skip(const char* at) const noexcept;

    const char* position_;
    const char* end_;
    std::int64_t remaining_;
};

inline RespReader RespValue::elements() const noexcept {
    return isAggregate() && integer > 0 ? RespReader(children_, end_, integer) : RespReader(end_, end_, 0);
}

}  // namespace loopwire::resp
