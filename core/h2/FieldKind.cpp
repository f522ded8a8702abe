// The kinds of request fields; see FieldKind.h.
#include "FieldKind.h"

#include "HpackStaticTable.h"
#include "http/HttpSyntax.h"

namespace loopwire::h2 {

namespace {

constexpr FieldKind classifyValidName(std::string_view name) noexcept {
    switch (name.size()) {
        case 2:
            return name == "te" ? FieldKind::Te : FieldKind::Regular;
        case 4:
            return name == "host" ? FieldKind::Host : FieldKind::Regular;
        case 6:
            return name == "cookie" ? FieldKind::Cookie : FieldKind::Regular;
        case 7:
            return name == "upgrade" ? FieldKind::ConnectionSpecific : FieldKind::Regular;
        case 10:
            return name == "connection" || name == "keep-alive" ? FieldKind::ConnectionSpecific : FieldKind::Regular;
        case 14:
            return name == "content-length" ? FieldKind::ContentLength : FieldKind::Regular;
        case 16:
            return name == "proxy-connection" ? FieldKind::ConnectionSpecific : FieldKind::Regular;
        case 17:
            return name == "transfer-encoding" ? FieldKind::ConnectionSpecific : FieldKind::Regular;
        default:
            return FieldKind::Regular;
    }
}

constexpr FieldKind classifyPseudo(std::string_view name) noexcept {
    if (name == ":method") return FieldKind::Method;
    if (name == ":path") return FieldKind::Path;
    if (name == ":scheme") return FieldKind::Scheme;
    if (name == ":authority") return FieldKind::Authority;
    if (name == ":protocol") return FieldKind::Protocol;
    if (name == ":status") return FieldKind::Status;
    return FieldKind::UnknownPseudo;
}

struct StaticKinds {
    FieldKind kind[kStaticTableSize + 1] = {};
};

constexpr StaticKinds classifyStaticTable() {
    StaticKinds kinds;
    for (std::uint32_t index = 1; index <= kStaticTableSize; ++index) {
        const std::string_view name = kStaticTable[index].name;
        kinds.kind[index] = name[0] == ':' ? classifyPseudo(name) : classifyValidName(name);
    }
    return kinds;
}

}  // namespace

FieldKind classifyName(std::string_view name) noexcept {
    if (name.empty()) return FieldKind::BadName;
    if (name[0] == ':') return classifyPseudo(name);
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7f || (byte >= 'A' && byte <= 'Z') || byte == ':') return FieldKind::BadName;
    }
    return classifyValidName(name);
}

FieldKind staticFieldKind(std::uint32_t index) noexcept {
    static constexpr StaticKinds kKinds = classifyStaticTable();
    return index <= kStaticTableSize ? kKinds.kind[index] : FieldKind::BadName;
}

bool isValidFieldValue(std::string_view value) noexcept {
    if (!value.empty()) {
        const char first = value.front();
        const char last = value.back();
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') return false;
    }
    return http_syntax::hasNoLineBreakOrNul(value);
}

}  // namespace loopwire::h2
