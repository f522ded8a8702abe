// Fuzz target for core/ws/Unmask: the first four bytes are the key, the fifth the offset (low two bits) and where
// the payload is cut in two for a second, piecewise pass (the other bits), the rest the payload.
// Every path (portable, SSE2, AVX2 where the machine has it) must give the bytes of the definition, payload byte i
// XOR key[(offset + i) % 4], and touch nothing past the payload (ASan sees the copy's end).
#include "ws/Unmask.h"

#include "FuzzSupport.h"

#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 5) return 0;
    const std::uint8_t key[4] = {data[0], data[1], data[2], data[3]};
    const auto offset = static_cast<std::uint8_t>(data[4] & 3);
    const std::uint8_t* payload = data + 5;
    const std::size_t length = size - 5;
    std::vector<std::uint8_t> expected(payload, payload + length);
    for (std::size_t i = 0; i < length; ++i)
        expected[i] ^= key[(offset + i) & 3];
    for (auto path :
         {loopwire::ws::UnmaskPath::Portable, loopwire::ws::UnmaskPath::Sse2, loopwire::ws::UnmaskPath::Avx2}) {
        std::vector<char> copy(payload, payload + length);
        loopwire::ws::unmaskWith(path, copy.data(), copy.size(), key, offset);
        FUZZ_CHECK(length == 0 || std::memcmp(copy.data(), expected.data(), length) == 0);
    }
    // In two pieces, as the frame parser unmasks a payload split across reads: the second starts in the key's phase.
    const std::size_t cut = length == 0 ? 0 : (std::size_t{data[4]} >> 2) * 7 % (length + 1);
    std::vector<char> pieces(payload, payload + length);
    loopwire::ws::unmask(pieces.data(), cut, key, offset);
    loopwire::ws::unmask(pieces.data() + cut, length - cut, key, static_cast<std::uint8_t>((offset + cut) & 3));
    FUZZ_CHECK(length == 0 || std::memcmp(pieces.data(), expected.data(), length) == 0);
    return 0;
}
