#include "ChunkedDecoder.h"
#include "HttpSyntax.h"

#include <limits>

namespace loopwire {

namespace {

using limits::kMaxChunkExtensionBytes;
using limits::kMaxChunkSizeDigits;
using limits::kMaxTrailerSectionBytes;

// Where in the grammar of RFC 9112 section 7.1 the consumed bytes end. Every state is resumable, so a partial
// size line or trailer needs no copy: the state and the counters below are all that is remembered.
enum State : std::uint8_t {
    kSizeFirst,     // the first hex digit of a chunk size
    kSize,          // more digits, or what ends them
    kSizeWs,        // BWS after the size, which only ';' may follow
    kExtNameStart,  // after ';': BWS, then a name
    kExtName,
    kExtNameWs,      // BWS after a name, which '=' or ';' must follow
    kExtValueStart,  // after '=': BWS, then a token or a quoted-string
    kExtToken,       // a token value
    kExtQuoted,
    kExtQuotedPair,  // after a backslash in a quoted-string
    kExtAfterQuote,  // after the closing quote: ';', CR or BWS
    kExtValueWs,     // BWS after a value, which ';' must follow
    kSizeLf,         // after the CR of a chunk header line
    kData,
    kDataCr,
    kDataLf,
    kTrailerLineStart,  // at the start of a trailer field line or of the final blank line
    kTrailerName,
    kTrailerValue,
    kTrailerLf,     // after the CR of a trailer field line
    kTrailerEndLf,  // after the CR of the final blank line
    kDone,
    kFailed,
};

enum CharClass : std::uint8_t {
    kToken = 1u << 0,       // tchar (RFC 9110 section 5.6.2)
    kHex = 1u << 1,         // HEXDIG
    kQuotedText = 1u << 2,  // qdtext: HTAB, SP, VCHAR except '"' and '\', obs-text
    kFieldChar = 1u << 3,   // field-vchar, SP, HTAB (the bytes of a trailer field value)
};

using http_syntax::isTokenChar;

// Generated at compile time from the RFC's character rules.
struct CharTable {
    std::uint8_t classes[256];
};

constexpr CharTable makeCharTable() noexcept {
    CharTable t{};
    for (unsigned c = 0; c < 256; ++c) {
        std::uint8_t k = 0;
        if (isTokenChar(c)) k |= kToken;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) k |= kHex;
        const bool visible = (c > 0x20 && c < 0x7F) || c >= 0x80;
        if (visible || c == ' ' || c == '\t') k |= kFieldChar;
        if ((visible || c == ' ' || c == '\t') && c != '"' && c != '\\') k |= kQuotedText;
        t.classes[c] = k;
    }
    return t;
}

constexpr CharTable kChars = makeCharTable();

inline bool has(unsigned char c, CharClass k) noexcept { return (kChars.classes[c] & k) != 0; }

inline unsigned hexValue(unsigned char c) noexcept {
    if (c <= '9') return c - '0';
    return (c | 0x20u) - 'a' + 10;
}

inline bool isWs(unsigned char c) noexcept { return c == ' ' || c == '\t'; }

// Chunk sizes above this are refused, so that sizes stay representable as signed 64-bit offsets downstream.
constexpr std::uint64_t kLargestChunk = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

void ChunkedDecoder::reset() noexcept {
    state_ = kSizeFirst;
    error_ = HttpError::None;
    chunkRemaining_ = 0;
    size_ = 0;
    digits_ = 0;
    extensionBytes_ = 0;
    trailerBytes_ = 0;
}

ChunkedResult ChunkedDecoder::fail(HttpError error, std::size_t consumed) noexcept {
    state_ = kFailed;
    error_ = error;
    return {ParseStatus::Error, error, consumed, {}};
}

ChunkedResult ChunkedDecoder::decode(std::string_view input) noexcept {
    const char* const begin = input.data();
    const char* const end = begin + input.size();
    const char* p = begin;
    const auto at = [begin](const char* q) noexcept { return static_cast<std::size_t>(q - begin); };

    if (state_ == kFailed) return {ParseStatus::Error, error_, 0, {}};
    if (state_ == kDone) return {ParseStatus::Complete, HttpError::None, 0, {}};

    while (p != end) {
        if (state_ == kData) {
            // The hot path: hand over as much of the chunk as the input holds, in one view.
            const std::size_t available = at(end) - at(p);
            const std::size_t n = chunkRemaining_ < available ? static_cast<std::size_t>(chunkRemaining_) : available;
            const char* const payload = p;
            p += n;
            chunkRemaining_ -= n;
            if (chunkRemaining_ == 0) state_ = kDataCr;
            return {ParseStatus::NeedMore, HttpError::None, at(p), std::string_view(payload, n)};
        }

        const unsigned char c = static_cast<unsigned char>(*p);

        // Everything after the size on its line, up to the CR, counts against the extension limit, before the
        // syntax of the byte is judged.
        if (state_ >= kSizeWs && state_ <= kExtValueWs && c != '\r') {
            if (++extensionBytes_ > kMaxChunkExtensionBytes) return fail(HttpError::ChunkExtensionTooLong, at(p));
        }
        // A lone LF anywhere in a chunk header line is a line ending without its CR.
        if (state_ <= kExtValueWs && c == '\n') return fail(HttpError::BareLineEnding, at(p));
        if (state_ >= kTrailerLineStart && state_ <= kTrailerEndLf) {
            if (++trailerBytes_ > kMaxTrailerSectionBytes) return fail(HttpError::TrailerSectionTooLarge, at(p));
        }

        switch (state_) {
            case kSizeFirst:
                if (!has(c, kHex)) return fail(HttpError::BadChunkSize, at(p));
                size_ = hexValue(c);
                digits_ = 1;
                extensionBytes_ = 0;
                state_ = kSize;
                break;
            case kSize:
                if (has(c, kHex)) {
                    // Leading zeros count as digits, so a size line can never be longer than the limits allow.
                    if (++digits_ > kMaxChunkSizeDigits || size_ > (kLargestChunk - hexValue(c)) / 16) {
                        return fail(HttpError::ChunkSizeOverflow, at(p));
                    }
                    size_ = size_ * 16 + hexValue(c);
                } else if (c == '\r') {
                    state_ = kSizeLf;
                } else if (c == ';' || isWs(c)) {
                    extensionBytes_ = 1;
                    state_ = c == ';' ? kExtNameStart : kSizeWs;
                } else {
                    return fail(HttpError::BadChunkSize, at(p));
                }
                break;
            case kSizeWs:
                // Whitespace after the size is BWS before an extension; with nothing after it, it is refused.
                if (c == ';') {
                    state_ = kExtNameStart;
                } else if (!isWs(c)) {
                    return fail(HttpError::BadChunkSize, at(p));
                }
                break;
            case kExtNameStart:
                if (has(c, kToken)) {
                    state_ = kExtName;
                } else if (!isWs(c)) {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtName:
                if (has(c, kToken)) break;
                if (c == '=') {
                    state_ = kExtValueStart;
                } else if (c == ';') {
                    state_ = kExtNameStart;
                } else if (c == '\r') {
                    state_ = kSizeLf;
                } else if (isWs(c)) {
                    state_ = kExtNameWs;
                } else {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtNameWs:
                if (c == '=') {
                    state_ = kExtValueStart;
                } else if (c == ';') {
                    state_ = kExtNameStart;
                } else if (!isWs(c)) {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtValueStart:
                if (has(c, kToken)) {
                    state_ = kExtToken;
                } else if (c == '"') {
                    state_ = kExtQuoted;
                } else if (!isWs(c)) {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtToken:
                if (has(c, kToken)) break;
                if (c == ';') {
                    state_ = kExtNameStart;
                } else if (c == '\r') {
                    state_ = kSizeLf;
                } else if (isWs(c)) {
                    state_ = kExtValueWs;
                } else {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtQuoted:
                if (c == '"') {
                    state_ = kExtAfterQuote;
                } else if (c == '\\') {
                    state_ = kExtQuotedPair;
                } else if (!has(c, kQuotedText)) {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtAfterQuote:
                if (c == ';') {
                    state_ = kExtNameStart;
                } else if (c == '\r') {
                    state_ = kSizeLf;
                } else if (isWs(c)) {
                    state_ = kExtValueWs;
                } else {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kExtQuotedPair:
                if (!has(c, kFieldChar)) return fail(HttpError::BadChunkExtension, at(p));
                state_ = kExtQuoted;
                break;
            case kExtValueWs:
                if (c == ';') {
                    state_ = kExtNameStart;
                } else if (!isWs(c)) {
                    return fail(HttpError::BadChunkExtension, at(p));
                }
                break;
            case kSizeLf:
                if (c != '\n') return fail(HttpError::BareLineEnding, at(p));
                if (size_ == 0) {
                    trailerBytes_ = 0;
                    state_ = kTrailerLineStart;
                } else {
                    chunkRemaining_ = size_;
                    state_ = kData;
                }
                break;
            case kDataCr:
                if (c != '\r') return fail(HttpError::BadChunkTerminator, at(p));
                state_ = kDataLf;
                break;
            case kDataLf:
                if (c != '\n') return fail(HttpError::BadChunkTerminator, at(p));
                state_ = kSizeFirst;
                break;
            case kTrailerLineStart:
                if (has(c, kToken)) {
                    state_ = kTrailerName;
                } else if (c == '\r') {
                    state_ = kTrailerEndLf;
                } else {
                    return fail(c == '\n' ? HttpError::BareLineEnding : HttpError::BadTrailer, at(p));
                }
                break;
            case kTrailerName:
                if (c == ':') {
                    state_ = kTrailerValue;
                } else if (!has(c, kToken)) {
                    return fail(HttpError::BadTrailer, at(p));
                }
                break;
            case kTrailerValue:
                if (c == '\r') {
                    state_ = kTrailerLf;
                } else if (!has(c, kFieldChar)) {
                    return fail(c == '\n' ? HttpError::BareLineEnding : HttpError::BadTrailer, at(p));
                }
                break;
            case kTrailerLf:
                if (c != '\n') return fail(HttpError::BareLineEnding, at(p));
                state_ = kTrailerLineStart;
                break;
            case kTrailerEndLf:
                if (c != '\n') return fail(HttpError::BareLineEnding, at(p));
                state_ = kDone;
                return {ParseStatus::Complete, HttpError::None, at(p) + 1, {}};
            default:
                return fail(HttpError::BadChunkSize, at(p));
        }
        ++p;
    }
    return {ParseStatus::NeedMore, HttpError::None, at(p), {}};
}

}  // namespace loopwire
