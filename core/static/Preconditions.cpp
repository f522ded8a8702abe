#include "static/Preconditions.h"

#include "base/Check.h"
#include "static/EntityTag.h"
#include "static/HttpDate.h"

#include <optional>

namespace loopwire::files {

namespace {

std::optional<EntityTag> currentTag(const Validators& current) noexcept {
    std::optional<EntityTag> tag = EntityTag::parse(current.entityTag);
    LW_CHECK(tag || current.entityTag.empty());
    return tag;
}

// Malformed matches nothing, whichever field it is (see Preconditions.h).
bool lists(std::string_view field, const std::optional<EntityTag>& current, TagComparison comparison) noexcept {
    return EntityTag::matchList(field, current, comparison) == TagListMatch::Matched;
}

}  // namespace

PreconditionVerdict Preconditions::evaluate(const ConditionalFields& fields, const Validators& current,
                                            std::int64_t now) noexcept {
    const std::optional<EntityTag> tag = currentTag(current);
    if (!fields.ifMatch.empty()) {
        if (!lists(fields.ifMatch, tag, TagComparison::Strong)) return PreconditionVerdict::PreconditionFailed;
    } else if (!fields.ifUnmodifiedSince.empty()) {
        const std::optional<std::int64_t> date = HttpDate::parse(fields.ifUnmodifiedSince, now);
        if (date && current.lastModified > *date) return PreconditionVerdict::PreconditionFailed;
    }
    if (!fields.ifNoneMatch.empty()) {
        // A match means the client has the representation: for a read that is a 304; any other method was asked
        // to act only on a representation the client does not have, so it must not.
        if (lists(fields.ifNoneMatch, tag, TagComparison::Weak)) {
            return fields.getOrHead ? PreconditionVerdict::NotModified : PreconditionVerdict::PreconditionFailed;
        }
    } else if (fields.getOrHead && !fields.ifModifiedSince.empty()) {
        const std::optional<std::int64_t> date = HttpDate::parse(fields.ifModifiedSince, now);
        if (date && current.lastModified <= *date) return PreconditionVerdict::NotModified;
    }
    return PreconditionVerdict::Proceed;
}

bool Preconditions::rangeApplies(std::string_view ifRange, const Validators& current, bool lastModifiedIsStrong,
                                 std::int64_t now) noexcept {
    if (ifRange.empty()) return true;
    // RFC 9110 §13.1.5 tells the two kinds apart by their first bytes: an entity-tag opens with a quote, or W/ and a
    // quote; no HTTP-date does.
    if (ifRange.front() == '"' || ifRange.starts_with("W/")) {
        const std::optional<EntityTag> given = EntityTag::parse(ifRange);
        const std::optional<EntityTag> tag = currentTag(current);
        return given && tag && given->matches(*tag, TagComparison::Strong);
    }
    // A weak Last-Modified may name two versions written within one second, so it cannot vouch that the client's
    // partial copy and the current representation are the same bytes.
    if (!lastModifiedIsStrong) return false;
    const std::optional<std::int64_t> date = HttpDate::parse(ifRange, now);
    return date && *date == current.lastModified;
}

}  // namespace loopwire::files
