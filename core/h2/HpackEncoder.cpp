// The HPACK encoder of responses; see HpackEncoder.h.
#include "HpackEncoder.h"

#include "HpackStaticTable.h"

#include <cstring>

namespace loopwire::h2 {

namespace {

constexpr std::uint8_t kLiteralWithoutIndexing = 0x00;  // 0000 and a 4-bit name index
constexpr std::uint8_t kIndexedField = 0x80;            // 1 and a 7-bit index
constexpr std::size_t kLongestStaticName = 27;

// The static index of :status with this code's value, or 0.
constexpr std::uint32_t indexOfStatus(unsigned status) noexcept {
    switch (status) {
        case 200:
            return 8;
        case 204:
            return 9;
        case 206:
            return 10;
        case 304:
            return 11;
        case 400:
            return 12;
        case 404:
            return 13;
        case 500:
            return 14;
        default:
            return 0;
    }
}

char* writeString(char* out, std::string_view text) noexcept {
    out = writeHpackInteger(out, 7, 0, static_cast<std::uint32_t>(text.size()));
    if (!text.empty()) std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

char toLower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

}  // namespace

char* writeStatusField(char* out, unsigned status) noexcept {
    if (const std::uint32_t index = indexOfStatus(status); index != 0)
        return writeHpackInteger(out, 7, kIndexedField, index);
    out = writeHpackInteger(out, 4, kLiteralWithoutIndexing, static_cast<std::uint32_t>(StaticName::Status));
    *out++ = 3;
    *out++ = static_cast<char>('0' + status / 100 % 10);
    *out++ = static_cast<char>('0' + status / 10 % 10);
    *out++ = static_cast<char>('0' + status % 10);
    return out;
}

char* writeStaticNameField(char* out, std::uint32_t staticIndex, std::string_view value) noexcept {
    return writeString(writeHpackInteger(out, 4, kLiteralWithoutIndexing, staticIndex), value);
}

char* writeHeaderField(char* out, std::string_view name, std::string_view value) noexcept {
    return writeHeaderField(out, name, {}, value);
}

char* writeHeaderField(char* out, std::string_view name, std::string_view valuePrefix,
                       std::string_view value) noexcept {
    std::uint32_t nameIndex = 0;
    if (name.size() <= kLongestStaticName) {
        char lower[kLongestStaticName];
        for (std::size_t i = 0; i < name.size(); ++i)
            lower[i] = toLower(name[i]);
        nameIndex = staticIndexOfName(std::string_view(lower, name.size()));
    }
    out = writeHpackInteger(out, 4, kLiteralWithoutIndexing, nameIndex);
    if (nameIndex == 0) {
        out = writeHpackInteger(out, 7, 0, static_cast<std::uint32_t>(name.size()));
        for (const char c : name)
            *out++ = toLower(c);
    }
    out = writeHpackInteger(out, 7, 0, static_cast<std::uint32_t>(valuePrefix.size() + value.size()));
    if (!valuePrefix.empty()) std::memcpy(out, valuePrefix.data(), valuePrefix.size());
    out += valuePrefix.size();
    if (!value.empty()) std::memcpy(out, value.data(), value.size());
    return out + value.size();
}

}  // namespace loopwire::h2
