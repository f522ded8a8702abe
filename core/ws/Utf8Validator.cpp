// The state machine takes one character at a time; between characters (at a boundary) a path may first skip what
// it can prove valid in bulk, and must stop on a character boundary or just before a character it could not see
// whole, which the state machine then takes. The bulk steps:
// - portable and SSE2: runs of ASCII, a word or a register (or four) at a time;
// - AVX2: any text, in 32-byte blocks. Whether a byte may follow the one before it depends only on the high nibble
//   and low nibble of the one before and the high nibble of itself, for every rule of UTF-8 but one, so three
//   16-entry tables, looked up with vpshufb and ANDed, give a byte whose bits say which rule (if any) the pair
//   breaks. The rule they cannot see is the length of three- and four-byte characters: a continuation byte after a
//   continuation byte is right exactly when the byte two before is a three- or four-byte lead, or the byte three
//   before a four-byte lead, which is compared separately. The tables' bits are one per rule (below); each rule is
//   a product of three nibble sets, which is what makes the AND exact.
#include "ws/Utf8Validator.h"

#include "base/CpuFeatures.h"

#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define LW_UTF8_X86 1
#else
#define LW_UTF8_X86 0
#endif

namespace loopwire {

namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

bool isContinuation(unsigned char byte) noexcept { return (byte & 0xC0) == 0x80; }

// Skips ASCII from p a word at a time; returns the first byte from 0x80 up, or where fewer than eight bytes are
// left before end.
const char* skipAsciiWords(const char* p, const char* end) noexcept {
    while (end - p >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, sizeof word);
        const std::uint64_t high = word & kHighBits;
        if (high != 0) {
            const int bit =
                std::endian::native == std::endian::little ? std::countr_zero(high) : std::countl_zero(high);
            return p + bit / 8;
        }
        p += 8;
    }
    return p;
}

#if LW_UTF8_X86
// Skips ASCII from p: its first word as the portable path does (text that is mostly not ASCII gives up there, at
// the cost of the portable path), then 64 bytes at a time, then 16. Returns the first byte from 0x80 up, or where
// fewer than eight are left.
const char* skipAsciiSse2(const char* p, const char* end) noexcept {
    if (end - p < 8) return p;
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    if ((word & kHighBits) != 0) return skipAsciiWords(p, end);
    p += 8;
    while (end - p >= 64) {
        const auto* at = reinterpret_cast<const __m128i*>(p);
        const __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(at), _mm_loadu_si128(at + 1)),
                                         _mm_or_si128(_mm_loadu_si128(at + 2), _mm_loadu_si128(at + 3)));
        if (_mm_movemask_epi8(any) != 0) break;
        p += 64;
    }
    for (; end - p >= 16; p += 16) {
        const auto high =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
        if (high != 0) return p + std::countr_zero(high);
    }
    return skipAsciiWords(p, end);
}

// The rules a pair of bytes (a, b) can break, one bit each; R(a, b) holds when a's high nibble, a's low nibble
// and b's high nibble are each in the rule's set.
enum Rule : std::uint8_t {
    kTooShort = 1u << 0,   // a lead of two bytes or more, then no continuation byte
    kTooLong = 1u << 1,    // ASCII, then a continuation byte
    kOverlong3 = 1u << 2,  // E0, then 80..9F
    kTooLarge = 1u << 3,   // F4..FF, then 90..BF
    kSurrogate = 1u << 4,  // ED, then A0..BF
    kOverlong2 = 1u << 5,  // C0 or C1, then a continuation byte
    kOverlong4 = 1u << 6,  // F0 or F5..FF, then 80..8F
    kTwoConts = 1u << 7,   // a continuation byte, then another: right only inside a three- or four-byte character
};

// The rules whose set of first high nibbles holds n.
constexpr std::uint8_t rulesOfFirstHigh(unsigned n) noexcept {
    if (n < 0x8) return kTooLong;
    if (n < 0xC) return kTwoConts;
    if (n == 0xC) return kTooShort | kOverlong2;
    if (n == 0xD) return kTooShort;
    if (n == 0xE) return kTooShort | kOverlong3 | kSurrogate;
    return kTooShort | kTooLarge | kOverlong4;
}

// The rules whose set of first low nibbles holds n.
constexpr std::uint8_t rulesOfFirstLow(unsigned n) noexcept {
    std::uint8_t rules = kTooShort | kTooLong | kTwoConts;  // any low nibble
    if (n <= 0x1) rules |= kOverlong2;
    if (n == 0x0) rules |= kOverlong3;
    if (n == 0xD) rules |= kSurrogate;
    if (n >= 0x4) rules |= kTooLarge;
    if (n == 0x0 || n >= 0x5) rules |= kOverlong4;
    return rules;
}

// The rules whose set of second high nibbles holds n.
constexpr std::uint8_t rulesOfSecondHigh(unsigned n) noexcept {
    if (n < 0x8 || n >= 0xC) return kTooShort;
    std::uint8_t rules = kTooLong | kOverlong2 | kTwoConts;  // any continuation byte
    if (n == 0x8) rules |= kOverlong3 | kOverlong4;
    if (n == 0x9) rules |= kOverlong3 | kTooLarge;
    if (n >= 0xA) rules |= kSurrogate | kTooLarge;
    return rules;
}

struct Utf8Tables {
    std::uint8_t firstHigh[16];   // by the high nibble of a
    std::uint8_t firstLow[16];    // by the low nibble of a
    std::uint8_t secondHigh[16];  // by the high nibble of b
};

constexpr Utf8Tables makeUtf8Tables() noexcept {
    Utf8Tables t{};
    for (unsigned n = 0; n < 16; ++n) {
        t.firstHigh[n] = rulesOfFirstHigh(n);
        t.firstLow[n] = rulesOfFirstLow(n);
        t.secondHigh[n] = rulesOfSecondHigh(n);
    }
    return t;
}

constexpr Utf8Tables kUtf8Tables = makeUtf8Tables();

__attribute__((target("avx2"))) inline __m256i table(const std::uint8_t (&entries)[16]) noexcept {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(entries));
    return _mm256_broadcastsi128_si256(half);
}

// block's bytes, each with the `back` bytes before it (1 to 3), the first ones taken from the end of previous.
template <int back>
__attribute__((target("avx2"))) inline __m256i before(__m256i block, __m256i previous) noexcept {
    // Lane 0 takes previous's high lane as what precedes it; lane 1 takes block's low lane.
    const __m256i preceding = _mm256_permute2x128_si256(previous, block, 0x21);
    return _mm256_alignr_epi8(block, preceding, 16 - back);
}

// Nonzero bytes where block, after previous, breaks a rule of UTF-8.
__attribute__((target("avx2"))) inline __m256i blockErrors(__m256i block, __m256i previous, __m256i firstHigh,
                                                           __m256i firstLow, __m256i secondHigh) noexcept {
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i prev1 = before<1>(block, previous);
    const __m256i rules = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(firstHigh, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                         _mm256_shuffle_epi8(firstLow, _mm256_and_si256(prev1, nibble))),
        _mm256_shuffle_epi8(secondHigh, _mm256_and_si256(_mm256_srli_epi16(block, 4), nibble)));
    // Where a continuation byte must follow a continuation byte: two after a lead from E0 up, three after one from
    // F0 up (saturating subtraction leaves nonzero exactly there).
    const __m256i third = _mm256_subs_epu8(before<2>(block, previous), _mm256_set1_epi8(static_cast<char>(0xDF)));
    const __m256i fourth = _mm256_subs_epu8(before<3>(block, previous), _mm256_set1_epi8(static_cast<char>(0xEF)));
    const __m256i inside = _mm256_or_si256(third, fourth);
    const __m256i mustBeTwoConts = _mm256_andnot_si256(_mm256_cmpeq_epi8(inside, _mm256_setzero_si256()),
                                                       _mm256_set1_epi8(static_cast<char>(kTwoConts)));
    return _mm256_xor_si256(rules, mustBeTwoConts);
}

// Nonzero when block ends inside a character: a lead in its last byte from C0, in the one before from E0, or in
// the one before that from F0. (Only asked where the next block is all ASCII, which cannot finish it.)
__attribute__((target("avx2"))) inline __m256i endsInsideACharacter(__m256i block) noexcept {
    alignas(32) static constexpr std::uint8_t kLargestComplete[32] = {
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF};
    return _mm256_subs_epu8(block, _mm256_load_si256(reinterpret_cast<const __m256i*>(kLargestComplete)));
}

// Skips ASCII from p, 64 bytes at a time, then 32; returns the first byte from 0x80 up, or where fewer than 32
// are left.
__attribute__((target("avx2"))) const char* skipAsciiAvx2(const char* p, const char* end) noexcept {
    while (end - p >= 64) {
        const auto* at = reinterpret_cast<const __m256i*>(p);
        if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_loadu_si256(at), _mm256_loadu_si256(at + 1))) != 0) break;
        p += 64;
    }
    for (; end - p >= 32; p += 32) {
        const auto high =
            static_cast<unsigned>(_mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
        if (high != 0) return p + std::countr_zero(high);
    }
    return p;
}

// Skips the ASCII from p (a character boundary), then validates the whole 32-byte blocks from the first byte that
// is not; returns nullptr when one breaks a rule, else where the state machine goes on: after the blocks, or at
// the lead of a character they cut.
__attribute__((target("avx2"))) const char* skipValidAvx2(const char* p, const char* end) noexcept {
    p = skipAsciiAvx2(p, end);
    if (end - p < 32) return skipAsciiWords(p, end);
    const __m256i firstHigh = table(kUtf8Tables.firstHigh);
    const __m256i firstLow = table(kUtf8Tables.firstLow);
    const __m256i secondHigh = table(kUtf8Tables.secondHigh);
    __m256i previous = _mm256_setzero_si256();  // what came before p reads as ASCII: p is a boundary
    __m256i errors = _mm256_setzero_si256();
    for (; end - p >= 32; p += 32) {
        const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        if (_mm256_movemask_epi8(block) == 0) {
            errors = _mm256_or_si256(errors, endsInsideACharacter(previous));
        } else {
            errors = _mm256_or_si256(errors, blockErrors(block, previous, firstHigh, firstLow, secondHigh));
        }
        previous = block;
    }
    if (_mm256_testz_si256(errors, errors) == 0) return nullptr;
    // Every pair and triple inside the blocks is right; a character their end cut is left to the state machine.
    const auto* last = reinterpret_cast<const unsigned char*>(p);
    if (last[-1] >= 0xC0) return p - 1;
    if (last[-2] >= 0xE0) return p - 2;
    if (last[-3] >= 0xF0) return p - 3;
    return skipAsciiWords(p, end);
}
#endif

// From p, a character boundary: skips what path proves valid in bulk; returns where the state machine goes on
// (a boundary, or the lead of a character), or nullptr when it found a byte no valid text has there.
const char* skipValid(Utf8Path path, const char* p, const char* end) noexcept {
#if LW_UTF8_X86
    if (path == Utf8Path::Avx2 && cpu::kHasAvx2) return skipValidAvx2(p, end);
    if (path != Utf8Path::Portable) return skipAsciiSse2(p, end);
#else
    static_cast<void>(path);
#endif
    return skipAsciiWords(p, end);
}

}  // namespace

bool Utf8Validator::hasPath(Utf8Path path) noexcept {
    switch (path) {
        case Utf8Path::Portable:
            return true;
        case Utf8Path::Sse2:
            return LW_UTF8_X86 != 0;
        case Utf8Path::Avx2:
#if LW_UTF8_X86
            return cpu::kHasAvx2;
#else
            return false;
#endif
    }
    return false;
}

Utf8Validator::State Utf8Validator::afterLeadByte(unsigned char byte) noexcept {
    if (byte < 0x80) return kBoundary;
    // 80..BF cannot start a character; C0 and C1 would only start overlong two-byte forms.
    if (byte < 0xC2) return kFailed;
    if (byte < 0xE0) return kTail1;
    if (byte == 0xE0) return kAfterE0;
    if (byte == 0xED) return kAfterED;
    if (byte < 0xF0) return kTail2;
    if (byte == 0xF0) return kAfterF0;
    if (byte < 0xF4) return kTail3;
    if (byte == 0xF4) return kAfterF4;
    // F5..FF would encode past U+10FFFF (or are not UTF-8 at all).
    return kFailed;
}

bool Utf8Validator::feedWith(Utf8Path path, std::string_view bytes) noexcept {
    State state = state_;
    const char* p = bytes.data();
    const char* const end = p + bytes.size();
    while (p != end) {
        if (state == kFailed) break;
        if (state == kBoundary) {
            p = skipValid(path, p, end);
            if (p == nullptr) {
                state = kFailed;
                break;
            }
            if (p == end) break;
            state = afterLeadByte(static_cast<unsigned char>(*p++));
            continue;
        }
        const auto byte = static_cast<unsigned char>(*p++);
        switch (state) {
            case kTail1:
                state = isContinuation(byte) ? kBoundary : kFailed;
                break;
            case kTail2:
                state = isContinuation(byte) ? kTail1 : kFailed;
                break;
            case kTail3:
                state = isContinuation(byte) ? kTail2 : kFailed;
                break;
            case kAfterE0:
                state = byte >= 0xA0 && byte <= 0xBF ? kTail1 : kFailed;
                break;
            case kAfterED:
                state = byte >= 0x80 && byte <= 0x9F ? kTail1 : kFailed;
                break;
            case kAfterF0:
                state = byte >= 0x90 && byte <= 0xBF ? kTail2 : kFailed;
                break;
            case kAfterF4:
                state = byte >= 0x80 && byte <= 0x8F ? kTail2 : kFailed;
                break;
            default:
                state = kFailed;
                break;
        }
    }
    state_ = state;
    return state != kFailed;
}

bool Utf8Validator::feed(std::string_view bytes) noexcept { return feedWith(Utf8Path::Avx2, bytes); }

bool Utf8Validator::isValidWith(Utf8Path path, std::string_view bytes) noexcept {
    Utf8Validator validator;
    return validator.feedWith(path, bytes) && validator.isComplete();
}

bool Utf8Validator::isValid(std::string_view bytes) noexcept { return isValidWith(Utf8Path::Avx2, bytes); }

}  // namespace loopwire
