#include "SequentialStrings.h"

#include "V8Compat.h"

#include <cstring>
#include <string>
#include <vector>

// What is assumed, and checked on each probe before anything is read directly:
// - a sequential one-byte string is one heap object: a header (the map, the hash field, the length as a 32-bit
//   integer), then its characters, one byte each; so is an internalized one, whose type differs only outside the
//   representation and encoding bits;
// - those bits are the same for every such string, and no other kind of string (cons, sliced, thin, external,
//   two-byte) has the same: V8's inline API compares them the same way for external strings.
// The header is looked for only in the first kHeaderBoundBytes of a 300-character probe, so learning never reads
// past it.

namespace loopwire::addon {

namespace {

constexpr int kHeaderBoundBytes = 32;

std::string probeText(std::size_t length, char first) {
    std::string text(length, ' ');
    for (std::size_t i = 0; i < length; ++i)
        text[i] = static_cast<char>(first + static_cast<char>(i % 23));
    return text;
}

}  // namespace

bool SequentialStrings::learnLayout(v8::Isolate* isolate) {
    if (v8::internal::kApiTaggedSize != sizeof(v8::internal::Address)) return false;
    using Internals = v8::internal::Internals;
    v8::HandleScope handles(isolate);
    struct Probe {
        std::string text;
        v8::Local<v8::String> string;
    };
    std::vector<Probe> probes;
    for (std::size_t length : {23u, 1u, 13u, 300u}) {
        for (auto type : {v8::NewStringType::kNormal, v8::NewStringType::kInternalized}) {
            Probe probe{probeText(length, static_cast<char>('A' + probes.size())), {}};
            if (!v8::String::NewFromOneByte(isolate, reinterpret_cast<const std::uint8_t*>(probe.text.data()), type,
                                            static_cast<int>(probe.text.size()))
                     .ToLocal(&probe.string)) {
                return false;
            }
            probes.push_back(std::move(probe));
        }
    }
    const auto objectOf = [](v8::Local<v8::String> string) {
        return reinterpret_cast<const char*>(v8::internal::ValueHelper::ValueAsAddress(*string) -
                                             v8::internal::kHeapObjectTag);
    };
    const auto typeOf = [](v8::Local<v8::String> string) {
        return Internals::GetInstanceType(v8::internal::ValueHelper::ValueAsAddress(*string)) &
               Internals::kStringRepresentationAndEncodingMask;
    };
    // The first probe (23 characters, too long to be a one-character string) gives the tag; the longest, whose
    // first eight characters are looked for in its first words, the offsets.
    const int tag = typeOf(probes.front().string);
    if ((tag & Internals::kStringEncodingMask) == 0 || tag == Internals::kExternalOneByteRepresentationTag) {
        return false;
    }
    const Probe& longest = probes[6];
    const char* object = objectOf(longest.string);
    int charsOffset = kUnknown;
    for (int offset = 8; offset <= kHeaderBoundBytes; offset += 4) {
        if (std::memcmp(object + offset, longest.text.data(), 8) == 0) {
            charsOffset = offset;
            break;
        }
    }
    if (charsOffset == kUnknown) return false;
    const int lengthOffset = charsOffset - static_cast<int>(sizeof(std::int32_t));
    // Every probe: the same tag, its length and text where the first had them, and the same bytes as V8's API.
    for (const Probe& probe : probes) {
        if (typeOf(probe.string) != tag || probe.string->Length() != static_cast<int>(probe.text.size())) {
            return false;
        }
        const char* at = objectOf(probe.string);
        std::int32_t length;
        std::memcpy(&length, at + lengthOffset, sizeof length);
        if (length != static_cast<std::int32_t>(probe.text.size())) return false;
        if (std::memcmp(at + charsOffset, probe.text.data(), probe.text.size()) != 0) return false;
        std::string copied(probe.text.size(), '\0');
        compat::writeOneByte(isolate, probe.string, copied.data(), copied.size());
        if (copied != probe.text) return false;
    }
    // A string of two bytes per character, and a cons string, must not read as one.
    const std::uint16_t wide[] = {0x3b1, 0x3b2, 0x3b3, 0x3b4, 0x3b5, 0x3b6, 0x3b7, 0x3b8, 0x3b9, 0x3ba,
                                  0x3bb, 0x3bc, 0x3bd, 0x3be, 0x3bf, 0x3c0, 0x3c1, 0x3c3, 0x3c4, 0x3c5};
    v8::Local<v8::String> twoByte;
    if (!v8::String::NewFromTwoByte(isolate, wide, v8::NewStringType::kNormal, 20).ToLocal(&twoByte) ||
        typeOf(twoByte) == tag) {
        return false;
    }
    v8::Local<v8::String> cons = v8::String::Concat(isolate, probes[0].string, probes[6].string);
    if (typeOf(cons) == tag) return false;
    lengthOffset_ = lengthOffset;
    tag_ = tag;
    charsOffset_.store(charsOffset, std::memory_order_release);
    return true;
}

bool SequentialStrings::learn(v8::Isolate* isolate) {
    // Workers may learn at once, each with its own probes and the same result; the first to finish publishes it.
    if (!learned_.exchange(true, std::memory_order_acq_rel)) learnLayout(isolate);
    return isDirect();
}

}  // namespace loopwire::addon
