// EntityTag: an entity-tag (RFC 9110 §8.8.3), its two comparisons, and the lists of them that If-Match and
// If-None-Match carry.
//
//   entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE      etagc = %x21 / %x23-7E / obs-text (%x80-FF)
//
// Comparison (§8.8.3.2): strong when neither tag is weak and their opaque-tags are the same bytes; weak when their
// opaque-tags are the same bytes, weak or not. "W/" is case-sensitive: "w/\"x\"" is no entity-tag.
//
// matchList() reads a whole If-Match or If-None-Match value ("*" / #entity-tag): tags separated by commas with
// optional whitespace (SP, HTAB) around them, empty elements skipped (RFC 9110 §5.6.1.2). It answers
//   - Matched: the value is "*" (any current representation; the caller has one), or it lists a tag that compares
//     equal to current.
//   - NotMatched: a well-formed list, possibly of empty elements only, that does not; always so when there is no
//     current tag.
//   - Malformed: anything else: a byte outside etagc, a quote missing, "W/" without a tag, "*" among tags, two tags
//     without a comma between them. It is the whole field's answer, even when a matching tag comes before the fault.
// Preconditions reads Malformed as NotMatched: If-Match fails, If-None-Match does not match; see Preconditions.h.
//
// No limit on a list's length is needed: matchList() reads the field once, stores nothing, and costs time linear in
// its bytes, which the HTTP parser's header limit already bounds.
//
// Pure: no allocation; an EntityTag views the text it was read from, which must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace loopwire::files {

enum class TagComparison : std::uint8_t { Strong, Weak };

enum class TagListMatch : std::uint8_t { Matched, NotMatched, Malformed };

struct EntityTag {
    std::string_view opaque;  // the bytes between the quotes
    bool weak = false;        // written with the "W/" prefix

    // The entity-tag text is, all of it (no whitespace around), or nullopt when it is none.
    static std::optional<EntityTag> parse(std::string_view text) noexcept;

    // Whether field, an If-Match or If-None-Match value, lists current; current is nullopt when the representation
    // has no entity-tag.
    static TagListMatch matchList(std::string_view field, const std::optional<EntityTag>& current,
                                  TagComparison comparison) noexcept;

    bool matches(const EntityTag& other, TagComparison comparison) const noexcept;
};

}  // namespace loopwire::files
