// Preconditions: whether a request's conditional fields (RFC 9110 §13.1) let its method go on against the selected
// representation, evaluated in the order of §13.2.2; and whether If-Range (§13.1.5) lets a Range field apply.
//
// Pure: reads field values and the representation's validators, never a file or a clock (the caller passes now),
// and allocates nothing.
//
// The file handler calls evaluate() once it has selected a representation that exists (a missing file is a 404:
// §13.2.1 has preconditions ignored when the response would otherwise be neither 2xx nor 412), before it sends
// anything; then, on Proceed and only when the request has a Range field, rangeApplies(). Both may be called any
// number of times, from any thread: they keep no state.
//
// evaluate() takes these steps in order; the first that answers wins:
//   1. If-Match present: PreconditionFailed unless the value is "*" or lists the current tag (strong comparison).
//   2. Otherwise, If-Unmodified-Since present: PreconditionFailed when it is a valid date and lastModified is later.
//   3. If-None-Match present: when the value is "*" or lists the current tag (weak comparison), NotModified for GET
//      and HEAD, PreconditionFailed for any other method. When it does not, step 4 is skipped.
//   4. Otherwise, for GET and HEAD only, If-Modified-Since present: NotModified when it is a valid date and
//      lastModified is not later.
//   5. Proceed.
// A malformed entity-tag list (EntityTag.h) matches nothing, the safe reading: If-Match fails with 412 and
// If-None-Match sends the full response, so neither a 304 nor the method follows from a field the server cannot
// read. A date that is not a valid HTTP-date (HttpDate.h) is ignored, as §13.1.3 and §13.1.4 ask. An empty field
// value is read as an absent field.
#pragma once

#include <cstdint>
#include <string_view>

namespace loopwire::files {

enum class PreconditionVerdict : std::uint8_t {
    Proceed,             // perform the method (and read Range, through rangeApplies())
    NotModified,         // 304, with the validators and no content
    PreconditionFailed,  // 412
};

// A request's conditional fields, each its value as the HTTP parser gives it; "" when absent. A field sent on
// several lines is passed as one value, its lines joined with commas.
struct ConditionalFields {
    std::string_view ifMatch{};
    std::string_view ifNoneMatch{};
    std::string_view ifModifiedSince{};
    std::string_view ifUnmodifiedSince{};
    bool getOrHead = true;  // the method is GET or HEAD
};

// The selected representation's validators, as its response sends them.
struct Validators {
    // The ETag value, quotes included: "\"1a2b-3c\"" or "W/\"1a2b-3c\""; "" when the representation has none.
    // Anything else is a caller's error (checked).
    std::string_view entityTag{};
    // The Last-Modified value in seconds since the epoch, already no later than the response's Date (§8.8.2.1).
    std::int64_t lastModified = 0;
};

struct Preconditions {
    // The verdict of fields against current. now (seconds since the epoch, the response's Date) places the
    // two-digit year of a date in the obsolete RFC 850 form.
    static PreconditionVerdict evaluate(const ConditionalFields& fields, const Validators& current,
                                        std::int64_t now) noexcept;

    // Whether the Range field may apply (true) or the whole representation must be sent (false), given the If-Range
    // value ifRange ("" when absent: true). A value that starts with a quote or "W/" is an entity-tag: true only
    // when it equals the current tag by strong comparison, so a weak tag on either side never does. Any other value
    // is a date: true only when lastModifiedIsStrong and it is a valid HTTP-date of exactly lastModified's second.
    // lastModifiedIsStrong is the caller's: a Last-Modified is a strong validator when it is at least one second
    // before the response's Date (§8.8.2.2). A malformed value is false: the whole representation is always right.
    static bool rangeApplies(std::string_view ifRange, const Validators& current, bool lastModifiedIsStrong,
                             std::int64_t now) noexcept;
};

}  // namespace loopwire::files
