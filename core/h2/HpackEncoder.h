// HpackEncoder: writes the fields of responses' header blocks (RFC 7541), without state.
//
// Contract
// - Every field written here is a literal "without indexing" (RFC 7541 section 6.2.2), which a decoder of any table
//   size reads. The one field a response indexes, date, and the table size updates the client's SETTINGS call for
//   are HpackEncoderTable's, the connection's state. Names known to the static table go out as its index, other
//   names as literals; strings go out as they are, not Huffman-coded (a response's values are mostly short or
//   already compact, and coding them costs more instructions than the bytes it saves).
// - :status is one byte for the seven codes of the static table (200, 204, 206, 304, 400, 404, 500) and four for
//   any other three-digit code.
// - Names are written lower-case, as HTTP/2 requires (RFC 9113 section 8.2.1), whatever case the handler used.
// - The caller reserves room first: statusBytes and fieldBytes bound what each call writes.
#pragma once

#include "HpackInteger.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

inline constexpr std::size_t kMaxStatusBytes = 5;

constexpr std::size_t fieldBytes(std::size_t nameLength, std::size_t valueLength) noexcept {
    return 2 * kMaxHpackIntegerBytes + nameLength + valueLength;
}

// status: 100 to 999.
char* writeStatusField(char* out, unsigned status) noexcept;
// name: at most kMaxHpackInteger bytes, any case; value likewise.
char* writeHeaderField(char* out, std::string_view name, std::string_view value) noexcept;
// The same with the value valuePrefix followed by value (a weakened ETag's "W/").
char* writeHeaderField(char* out, std::string_view name, std::string_view valuePrefix, std::string_view value) noexcept;
// A field whose name is the static table's entry staticIndex (content-length, date: the fields the server adds),
// without looking the name up.
char* writeStaticNameField(char* out, std::uint32_t staticIndex, std::string_view value) noexcept;

}  // namespace loopwire::h2
