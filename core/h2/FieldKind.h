// FieldKind: what a request's field is to the server, decided once per name: a pseudo-header, one of the fields
// RequestHeadBuilder acts on, one RFC 9113 forbids, or any other. The HPACK decoder gives it with every field: from
// a constexpr table for static-table names, from the dynamic table for names it holds (classified when they
// entered), and by classifyName for literal names. So a request whose fields are all indexed, as a browser's and
// h2load's are after the first, is built without comparing or scanning a single name.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire::h2 {

enum class FieldKind : std::uint8_t {
    Regular,  // a valid name with no meaning to the server
    BadName,  // upper case, a byte below 0x21 or from 0x7f, a colon past the start, or empty
    Host,
    Cookie,
    Te,
    ContentLength,
    ConnectionSpecific,  // connection, keep-alive, proxy-connection, transfer-encoding, upgrade
    Method,
    Path,
    Scheme,
    Authority,
    Protocol,  // :protocol (RFC 8441)
    Status,    // :status, a response's
    UnknownPseudo,
};

constexpr bool isPseudo(FieldKind kind) noexcept { return kind >= FieldKind::Method; }

// What a value is known to be: checked when a literal entered the dynamic table (once, however often it is
// referenced), always valid in the static table, or left to the caller.
enum class ValueCheck : std::uint8_t { Unchecked, Valid, Invalid };

// Classifies a literal name, checking it by RFC 9113 section 8.2.1 on the way.
FieldKind classifyName(std::string_view name) noexcept;
// The kind of the static table's entry `index` (1 to 61).
FieldKind staticFieldKind(std::uint32_t index) noexcept;
// RFC 9113 section 8.2.1: no NUL, CR or LF, and no SP or HTAB first or last.
bool isValidFieldValue(std::string_view value) noexcept;

}  // namespace loopwire::h2
