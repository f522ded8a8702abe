#include "ws/Utf8Validator.h"

#include <cstring>

namespace loopwire {

namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

bool isContinuation(unsigned char byte) noexcept { return (byte & 0xC0) == 0x80; }

}  // namespace

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

bool Utf8Validator::feed(std::string_view bytes) noexcept {
    State state = state_;
    const char* p = bytes.data();
    const char* const end = p + bytes.size();
    while (p != end) {
        if (state == kFailed) break;
        if (state == kBoundary) {
            // Text is mostly ASCII: skip it a word at a time.
            while (end - p >= 8) {
                std::uint64_t word;
                std::memcpy(&word, p, sizeof word);
                if ((word & kHighBits) != 0) break;
                p += 8;
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

bool Utf8Validator::isValid(std::string_view bytes) noexcept {
    Utf8Validator validator;
    return validator.feed(bytes) && validator.isComplete();
}

}  // namespace loopwire
