#include "static/RequestPath.h"

namespace loopwire::files {

namespace {

// The value of a hex digit in either case, or -1.
int hexValue(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    const char lower = static_cast<char>(c | 0x20);
    if (lower >= 'a' && lower <= 'f') return lower - 'a' + 10;
    return -1;
}

// Bytes that no file name served here holds. A backslash is a separator to Windows and to browsers, and an encoded
// slash only serves to smuggle a separator past a normaliser; both are refused rather than read as names so that
// no layer in front of or behind this one can disagree about where a segment ends.
bool isRefused(unsigned char byte) noexcept { return byte < 0x20 || byte == 0x7f || byte == '\\' || byte == '/'; }

// What resolve() needs to know of a segment once it is decoded; its bytes are in the array while the path fits.
struct Segment {
    std::size_t length = 0;
    unsigned char first = 0;
    unsigned char second = 0;

    bool isDot() const noexcept { return length == 1 && first == '.'; }
    bool isDotDot() const noexcept { return length == 2 && first == '.' && second == '.'; }
};

// Whether a byte may stand as it is in the Location field's path (RFC 3986 pchar, '/' and the '%' of escapes the
// request already holds); inQuery adds '?'.
bool isLocationByte(unsigned char byte, bool inQuery) noexcept {
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9')) return true;
    switch (byte) {
        case '-':
        case '.':
        case '_':
        case '~':
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case ':':
        case '@':
        case '/':
        case '%':
            return true;
        case '?':
            return inQuery;
        default:
            return false;
    }
}

// Appends text to out at `at`, percent-encoding the bytes isLocationByte refuses. False when out is too small.
bool appendForLocation(std::string_view text, bool inQuery, std::span<char> out, std::size_t& at) noexcept {
    constexpr char kHex[] = "0123456789ABCDEF";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (isLocationByte(byte, inQuery)) {
            if (at == out.size()) return false;
            out[at++] = c;
        } else {
            if (out.size() - at < 3) return false;
            out[at++] = '%';
            out[at++] = kHex[byte >> 4];
            out[at++] = kHex[byte & 0x0f];
        }
    }
    return true;
}

}  // namespace

PathVerdict RequestPath::resolve(std::string_view encoded, Dotfiles dotfiles, PathEncoding encoding) noexcept {
    size_ = 0;
    directory_ = false;
    bytes_[0] = '\0';
    // A NotFound reason does not end the scan: a BadRequest one later in the path wins, so that the verdict does
    // not depend on the order of the two.
    bool notFound = false;
    bool lastWasDot = false;
    std::size_t segments = 0;
    std::size_t at = 0;
    while (at < encoded.size()) {
        if (encoded[at] == '/') {
            ++at;
            lastWasDot = false;
            continue;
        }
        // The segment's bytes go after the path so far and a separating slash. Past kMaxPathBytes they are still
        // decoded and checked, but not stored.
        const std::size_t start = segments == 0 ? 0 : size_ + 1;
        if (segments != 0 && size_ < kMaxPathBytes) bytes_[size_] = '/';
        Segment segment;
        while (at < encoded.size() && encoded[at] != '/') {
            auto byte = static_cast<unsigned char>(encoded[at]);
            if (byte == '%' && encoding == PathEncoding::Percent) {
                if (encoded.size() - at < 3) return fail(PathVerdict::BadRequest);
                const int high = hexValue(encoded[at + 1]);
                const int low = hexValue(encoded[at + 2]);
                if (high < 0 || low < 0) return fail(PathVerdict::BadRequest);
                byte = static_cast<unsigned char>(high * 16 + low);
                at += 3;
            } else {
                ++at;
            }
            if (isRefused(byte)) return fail(PathVerdict::BadRequest);
            if (segment.length == 0) segment.first = byte;
            if (segment.length == 1) segment.second = byte;
            const std::size_t position = start + segment.length;
            if (position < kMaxPathBytes) bytes_[position] = static_cast<char>(byte);
            ++segment.length;
        }
        lastWasDot = segment.isDot();
        if (lastWasDot) continue;
        if (segment.isDotDot()) return fail(PathVerdict::BadRequest);
        // Once the answer is NotFound, the segments that follow are only checked for a BadRequest reason.
        if (notFound) continue;
        if (start + segment.length > kMaxPathBytes) {
            notFound = true;
            continue;
        }
        // Here the segment fits, so its bytes are stored and can be compared.
        const std::string_view name(bytes_.data() + start, segment.length);
        const bool wellKnown = segments == 0 && name == kWellKnown;
        if (segment.first == '.' && dotfiles == Dotfiles::Deny && !wellKnown) notFound = true;
        size_ = start + segment.length;
        ++segments;
    }
    if (notFound) return fail(PathVerdict::NotFound);
    bytes_[size_] = '\0';
    directory_ = lastWasDot || (!encoded.empty() && encoded.back() == '/');
    return PathVerdict::Ok;
}

PathVerdict RequestPath::fail(PathVerdict verdict) noexcept {
    size_ = 0;
    directory_ = false;
    bytes_[0] = '\0';
    return verdict;
}

std::string_view RequestPath::directoryLocation(std::string_view requestPath, std::string_view query,
                                                std::span<char> out) noexcept {
    // One leading slash, however many the request had: "//host/x" in a Location is a reference to another host.
    while (!requestPath.empty() && requestPath.front() == '/')
        requestPath.remove_prefix(1);
    std::size_t at = 0;
    if (out.empty()) return {};
    out[at++] = '/';
    if (!appendForLocation(requestPath, false, out, at)) return {};
    if (!requestPath.empty() && requestPath.back() != '/') {
        if (at == out.size()) return {};
        out[at++] = '/';
    }
    if (!query.empty()) {
        if (at == out.size()) return {};
        out[at++] = '?';
        if (!appendForLocation(query, true, out, at)) return {};
    }
    return {out.data(), at};
}

}  // namespace loopwire::files
