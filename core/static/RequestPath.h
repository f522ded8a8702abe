// RequestPath: the part of a request's path after a static route's prefix, turned into a relative path that is safe
// to open beneath the route's root directory, or the reason there is none.
//
// Pure: it reads bytes, never sees a file, and allocates nothing (the decoded path goes into the object's fixed
// array). The caller owns the RequestPath (about 4 KiB: on the stack, or one kept per thread) and reuses it;
// resolve() overwrites the last answer. One thread at a time.
//
// Input: what follows the prefix in the request's path, without the query and still percent-encoded. Cut the prefix
// without its trailing slash, so that the input is empty for the prefix itself and starts with '/' otherwise
// ("/static/css/a.css" under "/static" gives "/css/a.css"). An input without the leading '/' reads the same.
//
// resolve() answers one of:
//   - BadRequest (400), for a path no client sends in good faith, anywhere in it: an invalid escape ("%zz", a '%'
//     with fewer than two hex digits after it); a NUL, a backslash or an encoded slash, raw or percent-encoded; any
//     other control byte (below 0x20, or 0x7f); a ".." segment in any spelling ("..", "%2e%2e", ".%2E"...). A ".."
//     is refused even where it would stay inside the root, as nginx does: no request climbs.
//   - NotFound (404), for a well-formed path that must not or cannot name a file: a dotfile segment under
//     Dotfiles::Deny, or a decoded path longer than kMaxPathBytes. BadRequest wins when both apply.
//   - Ok: relative() is the path to open beneath the root, directory() says whether the request ended with a slash.
//
// On Ok, relative() has been percent-decoded exactly once (a '%' it decodes is a plain byte, never the start of
// another escape; "%252e" is the three bytes "%2e"), empty segments ("a//b", leading slashes) are dropped, "."
// segments are removed, and the segments that remain are joined by single slashes: it never starts with '/', never
// holds "..", "//", a NUL or a backslash. It is empty for the root directory itself. It is followed by a NUL in the
// object's array, so relative().data() may be passed to openat() as is. '+' stays '+' (paths are not form-encoded);
// other bytes, UTF-8 or not, are kept as they are, without Unicode normalisation.
//
// A directory: directory() is true when the input ends with '/' or with a "." segment ("a/." is "a/", RFC 3986
// §5.2.4). The file handler serves a directory's index file when directory() is true; when it is false and the path
// names a directory, it answers 301 to directoryLocation(); when it is true and the path names a file, 404.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace loopwire::files {

enum class PathVerdict : std::uint8_t { Ok, BadRequest, NotFound };

// Which segments that start with '.' are served. In either policy, a first segment exactly ".well-known" is
// served (RFC 8615: ACME challenges, security.txt); segments beneath it still follow the policy.
enum class Dotfiles : std::uint8_t {
    Deny,   // NotFound for any other segment that starts with '.', so that a 404 does not say whether it exists
    Allow,  // served as any other name (".." is still BadRequest)
};

// Whether '%' starts an escape (a request's path) or is a plain byte (a file path an application names).
enum class PathEncoding : std::uint8_t { Percent, None };

class RequestPath {
public:
    // Bytes of a decoded relative path. With its NUL, Linux's PATH_MAX (4096): a longer one could not be opened.
    static constexpr std::size_t kMaxPathBytes = 4095;
    // The one dotfile segment served under Dotfiles::Deny, as the first segment only.
    static constexpr std::string_view kWellKnown = ".well-known";

    // With PathEncoding::None the same rules apply to the bytes as they are: nothing is decoded, and '%' is a byte of
    // the name (HttpResponse::sendFile's path).
    PathVerdict resolve(std::string_view encoded, Dotfiles dotfiles = Dotfiles::Deny,
                        PathEncoding encoding = PathEncoding::Percent) noexcept;

    // After an Ok resolve(): the decoded path (into this object, valid until the next resolve()) and whether it is
    // a directory request. After any other verdict: empty and false.
    std::string_view relative() const noexcept { return {bytes_.data(), size_}; }
    bool directory() const noexcept { return directory_; }

    // The Location of the 301 that sends a directory requested without its slash to its slashed URL: requestPath
    // (the whole path as received, prefix included, percent-encoded, without the query) followed by '/' (unless it
    // ends with one), then '?' and query when query is not empty. Written into out; returns the written bytes, or an
    // empty view when out is too small (3 * (requestPath.size() + query.size()) + 3 bytes always suffice).
    // No allocation.
    //
    // The result is a path-absolute reference that stays on this host: leading slashes are reduced to one (so
    // "//evil.example" cannot become a network-path reference), and bytes a URI may not hold, a backslash (which
    // browsers read as '/') and '#' are percent-encoded, so no CR, LF or control byte reaches the header.
    static std::string_view directoryLocation(std::string_view requestPath, std::string_view query,
                                              std::span<char> out) noexcept;

private:
    // Clears the answer and returns verdict.
    PathVerdict fail(PathVerdict verdict) noexcept;

    // The decoded path and its NUL. Not zeroed on construction (4 KiB per request): resolve() writes what it reads.
    std::array<char, kMaxPathBytes + 1> bytes_;
    std::size_t size_ = 0;
    bool directory_ = false;
};

}  // namespace loopwire::files
