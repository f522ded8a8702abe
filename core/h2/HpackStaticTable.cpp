// The static table of RFC 7541 appendix A; see HpackStaticTable.h.
#include "HpackStaticTable.h"

namespace loopwire::h2 {

constexpr StaticField kStaticTable[kStaticTableSize + 1] = {
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

StaticName staticNameOf(std::uint32_t index) noexcept {
    // Only the pseudo-header names and :status repeat; every other name is its own first entry.
    if (index == 0 || index > kStaticTableSize) return StaticName::None;
    if (index <= 1) return StaticName::Authority;
    if (index <= 3) return StaticName::Method;
    if (index <= 5) return StaticName::Path;
    if (index <= 7) return StaticName::Scheme;
    if (index <= 14) return StaticName::Status;
    switch (index) {
        case 16:
        case 28:
        case 31:
        case 32:
        case 33:
        case 38:
        case 57:
            return static_cast<StaticName>(index);
        default:
            return StaticName::None;
    }
}

namespace {

constexpr std::size_t kLongestName = 27;  // access-control-allow-origin
constexpr std::size_t kMostNamesOfOneLength = 8;

// The first index of each distinct name, grouped by the name's length, so that a lookup compares a few names.
struct NamesByLength {
    std::uint8_t index[kLongestName + 1][kMostNamesOfOneLength] = {};
    std::uint8_t count[kLongestName + 1] = {};
};

constexpr NamesByLength groupNames(const StaticField (&table)[kStaticTableSize + 1]) {
    NamesByLength names;
    for (std::uint32_t index = 1; index <= kStaticTableSize; ++index) {
        if (table[index].name == table[index - 1].name) continue;
        const std::size_t length = table[index].name.size();
        names.index[length][names.count[length]++] = static_cast<std::uint8_t>(index);
    }
    return names;
}

}  // namespace

std::uint32_t staticIndexOfName(std::string_view name) noexcept {
    static constexpr NamesByLength kNames = groupNames(kStaticTable);
    if (name.size() > kLongestName) return 0;
    const auto& candidates = kNames.index[name.size()];
    for (std::uint8_t i = 0; i < kNames.count[name.size()]; ++i) {
        if (kStaticTable[candidates[i]].name == name) return candidates[i];
    }
    return 0;
}

}  // namespace loopwire::h2
