#include "static/EntityTag.h"

#include <cstddef>

namespace loopwire::files {

namespace {

constexpr std::string_view kWeakPrefix = "W/";

bool isOws(char c) noexcept { return c == ' ' || c == '\t'; }

// etagc: any visible byte but DQUOTE, and obs-text. Neither whitespace nor a control byte is one.
bool isEtagChar(char c) noexcept {
    const auto byte = static_cast<unsigned char>(c);
    return byte == 0x21 || (byte >= 0x23 && byte <= 0x7E) || byte >= 0x80;
}

void skipOws(std::string_view text, std::size_t& at) noexcept {
    while (at < text.size() && isOws(text[at]))
        ++at;
}

// One entity-tag at `at`, which it moves past the tag. False when none starts there. A comma is an etagc, so a
// tag is read to its closing quote rather than split at commas.
bool readTag(std::string_view text, std::size_t& at, EntityTag& tag) noexcept {
    tag.weak = text.substr(at, kWeakPrefix.size()) == kWeakPrefix;
    std::size_t next = tag.weak ? at + kWeakPrefix.size() : at;
    if (next >= text.size() || text[next] != '"') return false;
    const std::size_t first = ++next;
    while (next < text.size() && isEtagChar(text[next]))
        ++next;
    if (next >= text.size() || text[next] != '"') return false;
    tag.opaque = text.substr(first, next - first);
    at = next + 1;
    return true;
}

}  // namespace

std::optional<EntityTag> EntityTag::parse(std::string_view text) noexcept {
    EntityTag tag;
    std::size_t at = 0;
    if (!readTag(text, at, tag) || at != text.size()) return std::nullopt;
    return tag;
}

TagListMatch EntityTag::matchList(std::string_view field, const std::optional<EntityTag>& current,
                                  TagComparison comparison) noexcept {
    std::size_t first = 0;
    skipOws(field, first);
    std::size_t end = field.size();
    while (end > first && isOws(field[end - 1]))
        --end;
    if (field.substr(first, end - first) == "*") return TagListMatch::Matched;
    // The list is read to its end even after a match, so that a malformed field is never taken for a matching one.
    bool matched = false;
    std::size_t at = 0;
    while (true) {
        skipOws(field, at);
        if (at == field.size()) break;
        if (field[at] == ',') {
            ++at;
            continue;
        }
        EntityTag listed;
        if (!readTag(field, at, listed)) return TagListMatch::Malformed;
        skipOws(field, at);
        if (at < field.size() && field[at] != ',') return TagListMatch::Malformed;
        matched = matched || (current && listed.matches(*current, comparison));
    }
    return matched ? TagListMatch::Matched : TagListMatch::NotMatched;
}

bool EntityTag::matches(const EntityTag& other, TagComparison comparison) const noexcept {
    if (comparison == TagComparison::Strong && (weak || other.weak)) return false;
    return opaque == other.opaque;
}

}  // namespace loopwire::files
