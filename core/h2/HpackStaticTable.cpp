// The static table of RFC 7541 appendix A; see HpackStaticTable.h.
#include "HpackStaticTable.h"

namespace loopwire::h2 {

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
