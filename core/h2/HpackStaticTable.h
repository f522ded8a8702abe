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

// Index 0 is no field (an index of 0 is a decoding error); 1 to 61 are the table. In the header, so that other
// tables can be derived from it at compile time (FieldKind's).
inline constexpr StaticField kStaticTable[kStaticTableSize + 1] = {
    {"", ""},
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
};

// The static indices of the names the encoder writes by index.
enum class StaticName : std::uint8_t {
    Status = 8,  // :status, with 200 as its value
    ContentLength = 28,
    Date = 33,
};

// The lowest index whose name is `name` (lower-case), or 0.
std::uint32_t staticIndexOfName(std::string_view name) noexcept;

}  // namespace loopwire::h2
