// HpackStaticTable: the 61 predefined fields of HPACK (RFC 7541 appendix A), indexed from 1.
//
// The decoder reports the static index of a field's name, so that the request's pseudo-header fields and common
// names are recognised by number (StaticName below) instead of by comparing strings. The encoder looks names up
// here to send them as an index.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

struct StaticField {
    std::string_view name;
    std::string_view value;
};

inline constexpr std::uint32_t kStaticTableSize = 61;

// Index 0 is no field (an index of 0 is a decoding error); 1 to 61 are the table.
extern const StaticField kStaticTable[kStaticTableSize + 1];

// The static index of the first entry with each name the codec acts on (RFC 7541 appendix A).
enum class StaticName : std::uint8_t {
    None = 0,
    Authority = 1,
    Method = 2,
    Path = 4,
    Scheme = 6,
    Status = 8,
    AcceptEncoding = 16,
    ContentLength = 28,
    ContentType = 31,
    Cookie = 32,
    Date = 33,
    Host = 38,
    TransferEncoding = 57,
};

// The name every entry with this index has, as the StaticName of its first entry (":method" is 2 and 3, both
// Method); None for 0 or an index past the table.
StaticName staticNameOf(std::uint32_t index) noexcept;

// The lowest index whose name is `name` (lower-case), or 0.
std::uint32_t staticIndexOfName(std::string_view name) noexcept;

}  // namespace loopwire::h2
