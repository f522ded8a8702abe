// Every path first rotates the key so that it starts at offset, repeats it over a register, and XORs the payload a
// register at a time; what is left over goes to the next narrower step, down to single bytes. Loads and stores are
// unaligned: the payload lies wherever the frame put it. The wide loops do four (SSE2) or eight (AVX2) registers
// per iteration, which cuts their loop overhead (counted in instructions, the unit lwbench judges this by).
#include "ws/Unmask.h"

#include "base/CpuFeatures.h"

#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define LW_UNMASK_X86 1
#else
#define LW_UNMASK_X86 0
#endif

namespace loopwire::ws {

namespace {

// The key rotated to start at offset, twice over in a 64-bit word: byte i of the word masks payload byte i (and any
// byte a multiple of 4 or 8 further on), in memory order.
struct RotatedKey {
    std::uint64_t word;

    RotatedKey(const std::uint8_t (&key)[4], std::uint8_t offset) noexcept {
        std::uint32_t quad;
        std::memcpy(&quad, key, sizeof quad);
        // Byte offset of the key is to come first in memory: the low byte on a little-endian machine, the high one
        // on a big-endian one.
        const int shift = 8 * (offset & 3);
        if constexpr (std::endian::native == std::endian::little)
            quad = std::rotr(quad, shift);
        else
            quad = std::rotl(quad, shift);
        word = (std::uint64_t{quad} << 32) | quad;
    }
};

// From done on (a multiple of 4, where the key is in phase again), eight bytes at a time, then four, then what is
// left byte by byte, each masked by the word's next byte.
void unmaskWords(char* data, std::size_t done, std::size_t length, const RotatedKey& key) noexcept {
    for (; done + 8 <= length; done += 8) {
        std::uint64_t chunk;
        std::memcpy(&chunk, data + done, sizeof chunk);
        chunk ^= key.word;
        std::memcpy(data + done, &chunk, sizeof chunk);
    }
    std::uint8_t mask[8];
    std::memcpy(mask, &key.word, sizeof mask);
    if (done + 4 <= length) {
        std::uint32_t chunk;
        std::uint32_t half;
        std::memcpy(&chunk, data + done, sizeof chunk);
        std::memcpy(&half, mask, sizeof half);
        chunk ^= half;
        std::memcpy(data + done, &chunk, sizeof chunk);
        done += 4;
    }
    for (std::size_t i = 0; done < length; ++done, ++i)
        data[done] = static_cast<char>(static_cast<std::uint8_t>(data[done]) ^ mask[i]);
}

#if LW_UNMASK_X86
std::size_t unmaskSse2(char* data, std::size_t length, const RotatedKey& key) noexcept {
    const __m128i mask = _mm_set1_epi64x(static_cast<long long>(key.word));
    std::size_t done = 0;
    for (; done + 64 <= length; done += 64) {
        auto* at = reinterpret_cast<__m128i*>(data + done);
        const __m128i a = _mm_xor_si128(_mm_loadu_si128(at), mask);
        const __m128i b = _mm_xor_si128(_mm_loadu_si128(at + 1), mask);
        const __m128i c = _mm_xor_si128(_mm_loadu_si128(at + 2), mask);
        const __m128i d = _mm_xor_si128(_mm_loadu_si128(at + 3), mask);
        _mm_storeu_si128(at, a);
        _mm_storeu_si128(at + 1, b);
        _mm_storeu_si128(at + 2, c);
        _mm_storeu_si128(at + 3, d);
    }
    for (; done + 16 <= length; done += 16) {
        auto* at = reinterpret_cast<__m128i*>(data + done);
        _mm_storeu_si128(at, _mm_xor_si128(_mm_loadu_si128(at), mask));
    }
    return done;
}

__attribute__((target("avx2"))) std::size_t unmaskAvx2(char* data, std::size_t length, const RotatedKey& key) noexcept {
    const __m256i mask = _mm256_set1_epi64x(static_cast<long long>(key.word));
    std::size_t done = 0;
    for (; done + 256 <= length; done += 256) {
        auto* at = reinterpret_cast<__m256i*>(data + done);
        const __m256i a = _mm256_xor_si256(_mm256_loadu_si256(at), mask);
        const __m256i b = _mm256_xor_si256(_mm256_loadu_si256(at + 1), mask);
        const __m256i c = _mm256_xor_si256(_mm256_loadu_si256(at + 2), mask);
        const __m256i d = _mm256_xor_si256(_mm256_loadu_si256(at + 3), mask);
        const __m256i e = _mm256_xor_si256(_mm256_loadu_si256(at + 4), mask);
        const __m256i f = _mm256_xor_si256(_mm256_loadu_si256(at + 5), mask);
        const __m256i g = _mm256_xor_si256(_mm256_loadu_si256(at + 6), mask);
        const __m256i h = _mm256_xor_si256(_mm256_loadu_si256(at + 7), mask);
        _mm256_storeu_si256(at, a);
        _mm256_storeu_si256(at + 1, b);
        _mm256_storeu_si256(at + 2, c);
        _mm256_storeu_si256(at + 3, d);
        _mm256_storeu_si256(at + 4, e);
        _mm256_storeu_si256(at + 5, f);
        _mm256_storeu_si256(at + 6, g);
        _mm256_storeu_si256(at + 7, h);
    }
    for (; done + 32 <= length; done += 32) {
        auto* at = reinterpret_cast<__m256i*>(data + done);
        _mm256_storeu_si256(at, _mm256_xor_si256(_mm256_loadu_si256(at), mask));
    }
    return done;
}
#endif

}  // namespace

bool hasUnmaskPath(UnmaskPath path) noexcept {
    switch (path) {
        case UnmaskPath::Portable:
            return true;
        case UnmaskPath::Sse2:
            return LW_UNMASK_X86 != 0;
        case UnmaskPath::Avx2:
#if LW_UNMASK_X86
            return cpu::kHasAvx2;
#else
            return false;
#endif
    }
    return false;
}

void unmaskWith(UnmaskPath path, char* data, std::size_t length, const std::uint8_t (&key)[4],
                std::uint8_t offset) noexcept {
    if (length == 0) return;
    const RotatedKey rotated(key, offset);
    std::size_t done = 0;
#if LW_UNMASK_X86
    // The vector steps end on a multiple of 16 bytes, where the key's phase is the one it started with. A short
    // payload (most messages of a chat or a game) takes the words alone.
    if (length < 16) {
        path = UnmaskPath::Portable;
    } else if (path == UnmaskPath::Avx2 && cpu::kHasAvx2) {
        done = unmaskAvx2(data, length, rotated);
        done += unmaskSse2(data + done, length - done, rotated);
    } else if (path != UnmaskPath::Portable) {
        done = unmaskSse2(data, length, rotated);
    }
#else
    static_cast<void>(path);
#endif
    unmaskWords(data, done, length, rotated);
}

void unmask(char* data, std::size_t length, const std::uint8_t (&key)[4], std::uint8_t offset) noexcept {
    unmaskWith(UnmaskPath::Avx2, data, length, key, offset);
}

}  // namespace loopwire::ws
