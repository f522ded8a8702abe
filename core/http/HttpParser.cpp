#include "HttpParser.h"
#include "HttpSyntax.h"

#include "../base/Check.h"

#include <bit>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#define LW_PARSER_SSE2 1
#else
#define LW_PARSER_SSE2 0
#endif

namespace loopwire {

namespace {

using limits::kMaxHeaderCount;
using limits::kMaxHeaderSectionBytes;
using limits::kMaxMethodBytes;
using limits::kMaxRequestTargetBytes;

// Field offsets are stored in 16 bits; the section limit is what makes that safe.
static_assert(kMaxHeaderSectionBytes <= 0xFFFF, "HttpParser::FieldOffsets needs wider offsets");

// Where in the grammar the validated prefix ends. The parser resumes at the label of the same name.
enum Phase : std::uint8_t {
    kLeading,    // before the request line, where empty lines may come
    kLeadingLf,  // after the CR of an empty leading line
    kMethod,
    kPath,           // the request-target before any '?'
    kQuery,          // the request-target after its first '?'
    kVersion,        // inside "HTTP/x.y"
    kVersionEnd,     // after the version, where CR must come
    kRequestLineLf,  // after the CR of the request line
    kLineStart,      // at the start of a field line or of the blank line
    kName,
    kValueStart,  // after the colon, in the OWS before the value
    kValue,
    kLengthValue,  // the value of a Content-Length field, read digit by digit
    kValueLf,      // after the CR of a field line
    kEndLf,        // after the CR of the blank line
};

// What the special fields said so far, in HttpParser::flags_.
enum Flag : std::uint16_t {
    kHostSeen = 1u << 0,
    kContentLengthSeen = 1u << 1,
    kTransferEncodingSeen = 1u << 2,
    kChunkedSeen = 1u << 3,
    kChunkedLast = 1u << 4,
    kConnectionClose = 1u << 5,
    kConnectionKeepAlive = 1u << 6,
    kConnectionUpgrade = 1u << 7,
    kUpgradeField = 1u << 8,
    kExpectContinue = 1u << 9,
    kConnectMethod = 1u << 10,
    kLengthDigitSeen = 1u << 11,  // the Content-Length value being read has a digit
    kLengthOwsAfter = 1u << 12,   // ... and OWS after its digits, so only OWS or CR may follow
};

// The fields the parser interprets, in HttpParser::fieldKind_ while their line is read.
// Ordered: every kind after kHost has a value to read when its line ends.
enum FieldKind : std::uint8_t { kOtherField, kHost, kExpect, kUpgrade, kConnection, kContentLength, kTransferEncoding };

enum ValueClass : std::uint8_t { kValueChar, kValueOws, kValueOther };
enum TargetClass : std::uint8_t { kTargetChar, kTargetQuestion, kTargetOther };

using http_syntax::equalsLowerCase;
using http_syntax::forEachListElement;
using http_syntax::isOws;
using http_syntax::isTokenChar;
using http_syntax::trimOws;

// Generated at compile time from the predicates above; one lookup per byte on every path of the parser.
struct CharTables {
    unsigned char tokenLower[256];  // a tchar, lowercased; 0 for every other byte
    std::uint8_t value[256];        // ValueClass: field-vchar and obs-text, SP and HTAB, anything else
    std::uint8_t target[256];       // TargetClass: visible ASCII, '?', anything else (controls, SP, DEL, >= 0x80)
};

constexpr CharTables makeCharTables() noexcept {
    CharTables t{};
    for (unsigned c = 0; c < 256; ++c) {
        t.tokenLower[c] = isTokenChar(c) ? static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c) : 0;
        if (c == ' ' || c == '\t') {
            t.value[c] = kValueOws;
        } else if ((c > 0x20 && c < 0x7F) || c >= 0x80) {
            t.value[c] = kValueChar;
        } else {
            t.value[c] = kValueOther;
        }
        if (c == '?') {
            t.target[c] = kTargetQuestion;
        } else if (c > 0x20 && c < 0x7F) {
            t.target[c] = kTargetChar;
        } else {
            t.target[c] = kTargetOther;
        }
    }
    return t;
}

constexpr CharTables kChars = makeCharTables();

inline unsigned char uc(char c) noexcept { return static_cast<unsigned char>(c); }

// Eight bytes at a time for the long parts of a head (target and values). Each test below answers "is there
// such a byte in the word" exactly; which byte it is does not matter, because a word that has one is then
// walked byte by byte.
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

inline std::uint64_t load8(const char* p) noexcept {
    std::uint64_t x;
    std::memcpy(&x, p, sizeof x);
    return x;
}

constexpr std::uint64_t anyByteBelow(std::uint64_t x, std::uint64_t n) noexcept {
    return (x - kOnes * n) & ~x & kHighBits;
}

constexpr std::uint64_t anyByteEqual(std::uint64_t x, std::uint64_t b) noexcept {
    return anyByteBelow(x ^ (kOnes * b), 1);
}

// The high bit of each of eight target bytes that may end the run of visible ASCII ('?' counts only in the path);
// zero when none does. The lowest flag is exact (a borrow runs only toward the higher bytes, where it may flag a
// byte that does not stop), so firstFlaggedByte() is the first byte that stops the run.
inline std::uint64_t targetStops(std::uint64_t x, bool inPath) noexcept {
    std::uint64_t stops = anyByteBelow(x, 0x21) | anyByteEqual(x, 0x7F) | (x & kHighBits);
    if (inPath) stops |= anyByteEqual(x, '?');
    return stops;
}

// The index of the lowest byte flagged in a word of flags (little-endian: the byte read first).
inline unsigned firstFlaggedByte(std::uint64_t flags) noexcept {
    static_assert(std::endian::native == std::endian::little, "the word scans read bytes as little-endian words");
    return static_cast<unsigned>(__builtin_ctzll(flags)) / 8;
}

// Where the run of target bytes at p ends: in the path (inPath) at the first byte that is not visible ASCII or
// is '?', in the query at the first that is not visible ASCII; or at end. A word of eight such bytes is skipped
// whole, and a word with a stop jumps straight to its first flagged byte, which the byte test then decides.
template <bool inPath>
inline char* skipTargetRun(char* p, const char* end) noexcept {
    for (;;) {
        if (end - p >= 8) {
            const std::uint64_t stops = targetStops(load8(p), inPath);
            if (stops == 0) {
                p += 8;
                continue;
            }
            p += firstFlaggedByte(stops);
        }
        if (p == end) return p;
        const std::uint8_t kind = kChars.target[uc(*p)];
        if (inPath ? kind != kTargetChar : kind == kTargetOther) return p;
        ++p;
    }
}

// Eight value bytes that are all field-vchar, obs-text or SP (HTAB and other controls take the byte loop).
inline bool isPlainValueWord(std::uint64_t x) noexcept { return (anyByteBelow(x, 0x20) | anyByteEqual(x, 0x7F)) == 0; }

bool vectorScanningEnabled = LW_PARSER_SSE2 != 0;

#if LW_PARSER_SSE2
// Sixteen bytes at a time for header names and values, the bulk of a head: a browser's is a dozen fields of 10 to
// 100 bytes each, where the 8-byte scan above still walks the last bytes of every run one by one. Both functions
// read 16 bytes at p, which the caller guarantees are within the head.

inline __m128i bytesInRange(__m128i v, char low, char high) noexcept {
    // Signed compares: bytes from 0x80 up are negative, so never in an ASCII range.
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(static_cast<char>(low - 1))),
                         _mm_cmplt_epi8(v, _mm_set1_epi8(static_cast<char>(high + 1))));
}

// The number of bytes at p (up to 16) that are letters, digits or '-', the bytes nearly every field name is made
// of, with the letters among them lowercased in place. Other token characters ('_', '!'...) end the run like
// the colon does; the byte loop takes them.
inline unsigned lowercaseNameRun(char* p) noexcept {
    alignas(16) static constexpr signed char kFirstBytes[32] = {
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i upper = bytesInRange(v, 'A', 'Z');
    const __m128i simple = _mm_or_si128(_mm_or_si128(upper, bytesInRange(v, 'a', 'z')),
                                        _mm_or_si128(bytesInRange(v, '0', '9'), _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))));
    const auto simpleBits = static_cast<unsigned>(_mm_movemask_epi8(simple));
    const unsigned run = simpleBits == 0xFFFF ? 16 : static_cast<unsigned>(__builtin_ctz(~simpleBits));
    const auto upperBits = static_cast<unsigned>(_mm_movemask_epi8(upper));
    if ((upperBits & ((1u << run) - 1)) != 0) {
        // Only the run changes: what follows it (the colon, the value) is stored back as it was.
        const __m128i inRun = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kFirstBytes + 16 - run));
        const __m128i toLower = _mm_and_si128(_mm_and_si128(upper, inRun), _mm_set1_epi8(0x20));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(v, toLower));
    }
    return run;
}

// The number of bytes at p (up to 16) that are field-vchar, obs-text or SP: the value goes on at least that far.
// HTAB, the other controls (CR first of all) and DEL end the run.
inline unsigned valueRun(const char* p) noexcept {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i controlMax = _mm_set1_epi8(0x1F);
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, controlMax), controlMax);
    const __m128i stop = _mm_or_si128(control, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
    const auto stopBits = static_cast<unsigned>(_mm_movemask_epi8(stop));
    return stopBits == 0 ? 16 : static_cast<unsigned>(__builtin_ctz(stopBits));
}
#endif

// The largest body length accepted, so that lengths stay representable as signed 64-bit offsets downstream.
constexpr std::uint64_t kLargestLength = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

std::string_view RequestHead::header(std::string_view lowerCaseName) const noexcept {
    for (std::uint16_t i = 0; i < headerCount; ++i) {
        if (headers[i].name == lowerCaseName) return headers[i].value;
    }
    return {};
}

bool HttpParser::vectorScanning() noexcept { return vectorScanningEnabled; }

void HttpParser::setVectorScanningForTesting(bool enabled) noexcept {
    vectorScanningEnabled = enabled && LW_PARSER_SSE2 != 0;
}

void HttpParser::reset() noexcept {
    phase_ = kLeading;
    httpMinor_ = 1;
    flags_ = 0;
    headerCount_ = 0;
    position_ = 0;
    queryMark_ = 0;
    contentLength_ = 0;
}

// Classifies the field whose name just ended at its colon. Conflicts that the name alone proves are refused here,
// before its value arrives.
inline HttpError HttpParser::onFieldName(std::string_view name) noexcept {
    fieldKind_ = kOtherField;
    switch (name.size()) {
        case 4:
            if (name == "host") {
                if (flags_ & kHostSeen) return HttpError::RepeatedHost;
                flags_ |= kHostSeen;
                fieldKind_ = kHost;
            }
            break;
        case 6:
            if (name == "expect") fieldKind_ = kExpect;
            break;
        case 7:
            if (name == "upgrade") fieldKind_ = kUpgrade;
            break;
        case 10:
            if (name == "connection") fieldKind_ = kConnection;
            break;
        case 14:
            if (name == "content-length") {
                if (flags_ & kTransferEncodingSeen) return HttpError::ContentLengthWithChunked;
                fieldKind_ = kContentLength;
            }
            break;
        case 17:
            if (name == "transfer-encoding") {
                // RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing. We refuse
                // it rather than guess where its body ends.
                if (httpMinor_ == 0) return HttpError::BadTransferEncoding;
                if (flags_ & kContentLengthSeen) return HttpError::ContentLengthWithChunked;
                flags_ |= kTransferEncodingSeen;
                fieldKind_ = kTransferEncoding;
            }
            break;
        default:
            break;
    }
    return HttpError::None;
}

// The parser is one function with a label per phase: a whole head runs straight through the tight loops of each
// part, and a call that resumes jumps to the label of the phase where the previous call ran out of bytes. Every
// check is made when the byte that decides it is read, in byte order, so a message gives the same verdict
// however it is split.
ParseResult HttpParser::parse(char* data, std::size_t length, RequestHead& head) noexcept {
    LW_CHECK(length >= position_);
    // The head may not be longer than the limit, so nothing past it is ever read; if the limit is reached
    // without a complete head and more bytes exist, the head is too large.
    char* const end = data + (length < kMaxHeaderSectionBytes ? length : kMaxHeaderSectionBytes);
    char* p = data + position_;
    const auto offset = [data](const char* at) noexcept { return static_cast<std::uint32_t>(at - data); };
    HttpError error = HttpError::None;
    std::uint8_t phase = phase_;
    char* last = nullptr;
    // The field line's offsets live in locals while the head is read, and in members only between calls: the
    // parser writes the buffer through a char*, which may alias any member, so a member would be stored and
    // loaded again around every write.
    std::uint32_t elementStart = elementStart_;
    std::uint32_t nameEnd = nameEnd_;
    std::uint32_t valueStart = valueStart_;
    std::uint32_t valueEnd = valueEnd_;
    std::uint16_t headerCount = headerCount_;
    [[maybe_unused]] const bool vector = vectorScanningEnabled;

    switch (phase) {
        case kLeading:
            goto leading;
        case kLeadingLf:
            goto leadingLf;
        case kMethod:
            goto method;
        case kPath:
            goto path;
        case kQuery:
            goto query;
        case kVersion:
            goto version;
        case kVersionEnd:
            goto versionEnd;
        case kRequestLineLf:
            goto requestLineLf;
        case kLineStart:
            goto lineStart;
        case kName:
            goto name;
        case kValueStart:
            goto valueStart;
        case kValue:
            goto value;
        case kLengthValue:
            goto lengthValue;
        case kValueLf:
            goto valueLf;
        case kEndLf:
            goto endLf;
        default:
            LW_CHECK(false && "corrupt parser phase");
            goto leading;
    }

leading:
    // RFC 9112 section 2.2: a server should ignore at least one empty line before the request line. They count
    // against the section limit, which bounds them.
    if (p == end) {
        phase = kLeading;
        goto suspend;
    }
    if (*p == '\r') {
        ++p;
        goto leadingLf;
    }
    if (*p == '\n') {
        error = HttpError::BareLineEnding;
        goto fail;
    }
    methodStart_ = offset(p);
    goto method;

leadingLf:
    if (p == end) {
        phase = kLeadingLf;
        goto suspend;
    }
    if (*p != '\n') {
        error = HttpError::BareLineEnding;
        goto fail;
    }
    ++p;
    goto leading;

method:
    while (p != end && kChars.tokenLower[uc(*p)] != 0)
        ++p;
    if (offset(p) - methodStart_ > kMaxMethodBytes) {
        error = HttpError::BadMethod;
        goto fail;
    }
    if (p == end) {
        phase = kMethod;
        goto suspend;
    }
    if (*p != ' ' || offset(p) == methodStart_) {
        error = (*p == '\r' || *p == '\n') ? HttpError::BadRequestLine : HttpError::BadMethod;
        goto fail;
    }
    if (offset(p) - methodStart_ == 7 && std::memcmp(data + methodStart_, "CONNECT", 7) == 0) {
        flags_ |= kConnectMethod;
    }
    ++p;
    targetStart_ = offset(p);
    queryMark_ = 0;

path:
    p = skipTargetRun<true>(p, end);
    if (p != end && *p == '?') {
        queryMark_ = offset(p);
        ++p;
        goto query;
    }
    phase = kPath;
    goto targetEnd;

query:
    p = skipTargetRun<false>(p, end);
    phase = kQuery;

targetEnd:
    if (offset(p) - targetStart_ > kMaxRequestTargetBytes) {
        error = HttpError::TargetTooLong;
        goto fail;
    }
    if (p == end) goto suspend;
    if (*p != ' ' || offset(p) == targetStart_) {
        // A CR or LF here is a request line without a version (an HTTP/0.9 simple request, which we do not
        // serve): the line is malformed rather than the target.
        error = (*p == '\r' || *p == '\n') ? HttpError::BadRequestLine : HttpError::BadTarget;
        goto fail;
    }
    targetEnd_ = offset(p);
    ++p;
    elementStart = offset(p);

version:
    if (offset(p) == elementStart && end - p >= 10) {
        if (std::memcmp(p, "HTTP/1.1\r\n", 10) == 0) {
            httpMinor_ = 1;
            p += 10;
            goto lineStart;
        }
        if (std::memcmp(p, "HTTP/1.0\r\n", 10) == 0) {
            httpMinor_ = 0;
            p += 10;
            goto lineStart;
        }
    }
    while (p != end) {
        const std::uint32_t index = offset(p) - elementStart;
        const char c = *p;
        const bool expected = index < 5 ? c == "HTTP/"[index] : index == 6 ? c == '.' : (c >= '0' && c <= '9');
        if (!expected) {
            error = HttpError::BadRequestLine;
            goto fail;
        }
        ++p;
        if (index == 7) {
            // A well-formed version that is not 1.0 or 1.1 is refused as soon as its last digit arrives.
            if (data[elementStart + 5] != '1' || c > '1') {
                error = HttpError::UnsupportedVersion;
                goto fail;
            }
            httpMinor_ = static_cast<std::uint8_t>(c - '0');
            goto versionEnd;
        }
    }
    phase = kVersion;
    goto suspend;

versionEnd:
    if (p == end) {
        phase = kVersionEnd;
        goto suspend;
    }
    if (*p != '\r') {
        error = *p == '\n' ? HttpError::BareLineEnding : HttpError::BadRequestLine;
        goto fail;
    }
    ++p;

requestLineLf:
    if (p == end) {
        phase = kRequestLineLf;
        goto suspend;
    }
    if (*p != '\n') {
        error = HttpError::BareLineEnding;
        goto fail;
    }
    ++p;

lineStart:
    if (p == end) {
        phase = kLineStart;
        goto suspend;
    }
    if (kChars.tokenLower[uc(*p)] != 0) {
        if (headerCount == kMaxHeaderCount) {
            error = HttpError::TooManyHeaders;
            goto fail;
        }
        elementStart = offset(p);
        goto name;
    }
    if (*p == '\r') {
        ++p;
        goto endLf;
    }
    // A line that starts with whitespace is obs-fold (or, right after the request line, the whitespace that
    // RFC 9112 section 2.2 lets a server reject); both are refused.
    error = isOws(*p) ? HttpError::ObsoleteLineFolding
                      : (*p == '\n' ? HttpError::BareLineEnding : HttpError::BadHeaderName);
    goto fail;

name:
    // Names are lowercased as they are validated, so lookups compare bytes and never fold case again.
#if LW_PARSER_SSE2
    if (vector) {
        while (end - p >= 16) {
            const unsigned run = lowercaseNameRun(p);
            p += run;
            if (run < 16) break;
        }
    }
#endif
    for (;;) {
        if (p == end) {
            phase = kName;
            goto suspend;
        }
        const unsigned char lower = kChars.tokenLower[uc(*p)];
        if (lower == 0) break;
        *p = static_cast<char>(lower);
        ++p;
    }
    if (*p != ':') {
        error = HttpError::BadHeaderName;
        goto fail;
    }
    nameEnd = offset(p);
    error = onFieldName(std::string_view(data + elementStart, nameEnd - elementStart));
    if (error != HttpError::None) goto fail;
    ++p;
    if (fieldKind_ == kContentLength) {
        pendingLength_ = 0;
        flags_ &= static_cast<std::uint16_t>(~(kLengthDigitSeen | kLengthOwsAfter));
        valueStart = valueEnd = offset(p);
        goto lengthValue;
    }

valueStart:
    while (p != end && isOws(*p))
        ++p;
    if (p == end) {
        phase = kValueStart;
        goto suspend;
    }
    valueStart = offset(p);
    valueEnd = valueStart;

value:
    // last follows the end of the value without its trailing OWS, so nothing is walked twice.
    last = data + valueEnd;
    for (;;) {
#if LW_PARSER_SSE2
        if (vector && end - p >= 16) {
            // A run that ends in SP is left to the loops below, which keep last before trailing OWS.
            const unsigned run = valueRun(p);
            if (run != 0 && p[run - 1] != ' ') {
                p += run;
                last = p;
                if (run == 16) continue;
            }
        }
#endif
        if (end - p >= 8 && isPlainValueWord(load8(p)) && p[7] != ' ') {
            p += 8;
            last = p;
            continue;
        }
        if (p == end) break;
        const std::uint8_t kind = kChars.value[uc(*p)];
        if (kind == kValueOther) break;
        ++p;
        if (kind == kValueChar) last = p;
    }
    valueEnd = offset(last);
    if (p == end) {
        phase = kValue;
        goto suspend;
    }
    if (*p != '\r') {
        error = *p == '\n' ? HttpError::BareLineEnding : HttpError::BadHeaderValue;
        goto fail;
    }
    ++p;
    goto valueLf;

lengthValue:
    // Content-Length is read digit by digit, so a bad or overflowing length is refused at the byte that makes it
    // so, and the length is known when the line ends.
    while (p != end) {
        const char c = *p;
        if (c >= '0' && c <= '9') {
            const unsigned digit = static_cast<unsigned>(c - '0');
            if ((flags_ & kLengthOwsAfter) || pendingLength_ > (kLargestLength - digit) / 10) {
                error = HttpError::BadContentLength;
                goto fail;
            }
            pendingLength_ = pendingLength_ * 10 + digit;
            if (!(flags_ & kLengthDigitSeen)) valueStart = offset(p);
            flags_ |= kLengthDigitSeen;
            ++p;
            valueEnd = offset(p);
        } else if (isOws(c)) {
            if (flags_ & kLengthDigitSeen) flags_ |= kLengthOwsAfter;
            ++p;
        } else if (c == '\r' && (flags_ & kLengthDigitSeen)) {
            ++p;
            goto valueLf;
        } else {
            // Anything else, including a CR that ends an empty value, is not a length.
            error = c == '\n' ? HttpError::BareLineEnding : HttpError::BadContentLength;
            goto fail;
        }
    }
    phase = kLengthValue;
    goto suspend;

valueLf:
    if (p == end) {
        phase = kValueLf;
        goto suspend;
    }
    if (*p != '\n') {
        error = HttpError::BareLineEnding;
        goto fail;
    }
    ++p;
    fields_[headerCount] =
        FieldOffsets{static_cast<std::uint16_t>(elementStart), static_cast<std::uint16_t>(nameEnd - elementStart),
                     static_cast<std::uint16_t>(valueStart), static_cast<std::uint16_t>(valueEnd - valueStart)};
    ++headerCount;
    // Host's name said all there is to check (that it came once); only the others have values to read.
    if (fieldKind_ > kHost) {
        error = onFieldLine(std::string_view(data + valueStart, valueEnd - valueStart));
        if (error != HttpError::None) goto fail;
    }
    goto lineStart;

endLf:
    if (p == end) {
        phase = kEndLf;
        goto suspend;
    }
    if (*p != '\n') {
        error = HttpError::BareLineEnding;
        goto fail;
    }
    ++p;
    headerCount_ = headerCount;
    return complete(data, offset(p), head);

suspend:
    if (length > kMaxHeaderSectionBytes) {
        error = HttpError::HeaderSectionTooLarge;
        goto fail;
    }
    phase_ = phase;
    position_ = offset(p);
    elementStart_ = elementStart;
    nameEnd_ = nameEnd;
    valueStart_ = valueStart;
    valueEnd_ = valueEnd;
    headerCount_ = headerCount;
    return {ParseStatus::NeedMore, HttpError::None, 0};

fail:
    reset();
    return {ParseStatus::Error, error, 0};
}

// Applies the value of the field line just recorded, now that the line has ended.
HttpError HttpParser::onFieldLine(std::string_view value) noexcept {
    switch (fieldKind_) {
        case kExpect:
            if (equalsLowerCase(value, "100-continue")) flags_ |= kExpectContinue;
            break;
        case kUpgrade:
            if (!value.empty()) flags_ |= kUpgradeField;
            break;
        case kConnection:
            forEachListElement(value, [this](std::string_view option) noexcept {
                if (equalsLowerCase(option, "close")) {
                    flags_ |= kConnectionClose;
                } else if (equalsLowerCase(option, "keep-alive")) {
                    flags_ |= kConnectionKeepAlive;
                } else if (equalsLowerCase(option, "upgrade")) {
                    flags_ |= kConnectionUpgrade;
                }
                return HttpError::None;
            });
            break;
        case kContentLength:
            // The digits were validated as they arrived. A repeated field is accepted only with the same value
            // (RFC 9110 section 8.6), since then every reader agrees on the length.
            if ((flags_ & kContentLengthSeen) && pendingLength_ != contentLength_) return HttpError::BadContentLength;
            flags_ |= kContentLengthSeen;
            contentLength_ = pendingLength_;
            break;
        case kTransferEncoding:
            return forEachListElement(value, [this](std::string_view coding) noexcept {
                const std::string_view codingName = trimOws(coding.substr(0, coding.find(';')));
                if (codingName.empty()) return HttpError::BadTransferEncoding;
                for (const char c : codingName) {
                    if (kChars.tokenLower[uc(c)] == 0) return HttpError::BadTransferEncoding;
                }
                // Once chunked has been applied nothing may follow it, not even a second chunked: such a message
                // can never end with exactly one final chunked, so it is refused at once.
                if (flags_ & kChunkedSeen) return HttpError::BadTransferEncoding;
                if (equalsLowerCase(codingName, "chunked")) flags_ |= kChunkedSeen | kChunkedLast;
                return HttpError::None;
            });
        default:
            break;
    }
    return HttpError::None;
}

ParseResult HttpParser::complete(char* data, std::size_t consumed, RequestHead& head) noexcept {
    const std::uint16_t flags = flags_;
    HttpError error = HttpError::None;
    BodyFraming framing = BodyFraming::None;
    if (flags & kTransferEncodingSeen) {
        // RFC 9112 section 6.3: a request whose final transfer coding is not chunked has no knowable length.
        if (!(flags & kChunkedLast)) error = HttpError::BadTransferEncoding;
        framing = BodyFraming::Chunked;
    } else if ((flags & kContentLengthSeen) && contentLength_ != 0) {
        framing = BodyFraming::ContentLength;
    }
    if (error == HttpError::None && httpMinor_ == 1 && !(flags & kHostSeen)) error = HttpError::MissingHost;
    if (error != HttpError::None) {
        reset();
        return {ParseStatus::Error, error, 0};
    }

    head.method = std::string_view(data + methodStart_, targetStart_ - 1 - methodStart_);
    head.target = std::string_view(data + targetStart_, targetEnd_ - targetStart_);
    if (queryMark_ != 0) {
        head.path = std::string_view(data + targetStart_, queryMark_ - targetStart_);
        head.query = std::string_view(data + queryMark_ + 1, targetEnd_ - queryMark_ - 1);
    } else {
        head.path = head.target;
        head.query = std::string_view();
    }
    const bool http11 = httpMinor_ == 1;
    head.httpMinor = httpMinor_;
    head.framing = framing;
    head.contentLength = framing == BodyFraming::ContentLength ? contentLength_ : 0;
    head.keepAlive = !(flags & kConnectionClose) && (http11 || (flags & kConnectionKeepAlive));
    // RFC 9110 sections 10.1.1 and 7.8: HTTP/1.0 requests cannot expect 100-continue nor upgrade.
    head.expectContinue = http11 && (flags & kExpectContinue);
    head.upgrade = (flags & kConnectMethod) || (http11 && (flags & kUpgradeField) && (flags & kConnectionUpgrade));
    head.headerCount = headerCount_;
    for (std::uint16_t i = 0; i < headerCount_; ++i) {
        const FieldOffsets& field = fields_[i];
        head.headers[i].name = std::string_view(data + field.nameStart, field.nameLength);
        head.headers[i].value = std::string_view(data + field.valueStart, field.valueLength);
    }
    reset();
    return {ParseStatus::Complete, HttpError::None, consumed};
}

}  // namespace loopwire
