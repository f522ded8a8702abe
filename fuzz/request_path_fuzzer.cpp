// Fuzz target for core/static/RequestPath: any bytes as the encoded path after a static route's prefix, the dotfile
// policy taken from the first byte.
//
// Checks the contract resolve() states: an Ok path fits kMaxPathBytes and is followed by a NUL, never starts or ends
// with '/', and holds no empty, "." or ".." segment, no NUL, backslash or other control byte, and under
// Dotfiles::Deny no segment that starts with '.' but a first ".well-known"; a raw NUL, backslash or control byte in
// the input is always BadRequest; any other verdict leaves the answer empty; resolving again gives the same answer;
// the Ok path, percent-encoded again (its unsafe bytes only, or every byte), resolves to itself. And that
// directoryLocation() of the input is a path on this host, of visible ASCII only, that ends with '/'. Resolved as a
// file name (PathEncoding::None), the same contract holds, and an input without '%' gets the same answer.
#include "static/RequestPath.h"

#include "FuzzSupport.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

using loopwire::files::Dotfiles;
using loopwire::files::PathEncoding;
using loopwire::files::PathVerdict;
using loopwire::files::RequestPath;

namespace {

// The path as a client would send it: '%' and the bytes a path may not hold raw percent-encoded, or every byte but
// the separators when `everything`, in lower case hex then.
std::string encode(std::string_view path, bool everything) {
    constexpr char kUpper[] = "0123456789ABCDEF";
    constexpr char kLower[] = "0123456789abcdef";
    const char* hex = everything ? kLower : kUpper;
    std::string encoded;
    for (const char c : path) {
        const auto byte = static_cast<unsigned char>(c);
        const bool raw = byte == '/' || (!everything && byte > 0x20 && byte < 0x7f && byte != '%');
        if (raw) {
            encoded += c;
        } else {
            encoded += '%';
            encoded += hex[byte >> 4];
            encoded += hex[byte & 0x0f];
        }
    }
    return encoded;
}

void checkOkPath(std::string_view path, Dotfiles dotfiles) {
    FUZZ_CHECK(path.size() <= RequestPath::kMaxPathBytes);
    FUZZ_CHECK(path.data()[path.size()] == '\0');
    if (path.empty()) return;
    FUZZ_CHECK(path.front() != '/' && path.back() != '/');
    std::size_t start = 0;
    bool first = true;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view segment = path.substr(start, end - start);
        FUZZ_CHECK(!segment.empty() && segment != "." && segment != "..");
        for (const char c : segment) {
            const auto byte = static_cast<unsigned char>(c);
            FUZZ_CHECK(byte >= 0x20 && byte != 0x7f && byte != '\\');
        }
        if (dotfiles == Dotfiles::Deny && segment.front() == '.') {
            FUZZ_CHECK(first && segment == RequestPath::kWellKnown);
        }
        first = false;
        start = end + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const Dotfiles dotfiles = (data[0] & 1) != 0 ? Dotfiles::Allow : Dotfiles::Deny;
    const std::string_view encoded(reinterpret_cast<const char*>(data) + 1, size - 1);
    RequestPath path;
    const PathVerdict verdict = path.resolve(encoded, dotfiles);
    for (const char c : encoded) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f || byte == '\\') FUZZ_CHECK(verdict == PathVerdict::BadRequest);
    }
    if (verdict == PathVerdict::Ok) {
        checkOkPath(path.relative(), dotfiles);
    } else {
        FUZZ_CHECK(path.relative().empty() && !path.directory());
    }
    RequestPath again;
    FUZZ_CHECK(again.resolve(encoded, dotfiles) == verdict);
    FUZZ_CHECK(again.relative() == path.relative() && again.directory() == path.directory());
    if (verdict == PathVerdict::Ok) {
        for (const bool everything : {false, true}) {
            const std::string reencoded = encode(path.relative(), everything) + (path.directory() ? "/" : "");
            RequestPath roundTrip;
            FUZZ_CHECK(roundTrip.resolve(reencoded, dotfiles) == PathVerdict::Ok);
            FUZZ_CHECK(roundTrip.relative() == path.relative() && roundTrip.directory() == path.directory());
        }
    }
    // As a file name (HttpResponse::sendFile): the same checks hold with nothing decoded, and a path without '%'
    // reads the same either way.
    RequestPath raw;
    const PathVerdict rawVerdict = raw.resolve(encoded, dotfiles, PathEncoding::None);
    if (rawVerdict == PathVerdict::Ok) {
        checkOkPath(raw.relative(), dotfiles);
    } else {
        FUZZ_CHECK(raw.relative().empty() && !raw.directory());
    }
    if (encoded.find('%') == std::string_view::npos) {
        FUZZ_CHECK(rawVerdict == verdict && raw.relative() == path.relative() && raw.directory() == path.directory());
    }
    std::vector<char> out(3 * encoded.size() + 3);
    const std::string_view location = RequestPath::directoryLocation(encoded, {}, out);
    FUZZ_CHECK(!location.empty() && location.front() == '/' && location.back() == '/');
    FUZZ_CHECK(location.size() == 1 || location[1] != '/');
    for (const char c : location) {
        const auto byte = static_cast<unsigned char>(c);
        FUZZ_CHECK(byte > 0x20 && byte < 0x7f && byte != '\\' && byte != '#' && byte != '?');
    }
    return 0;
}
