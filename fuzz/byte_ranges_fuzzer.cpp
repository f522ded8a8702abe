// Fuzz target for core/static/ByteRanges: any bytes as a Range field, against a representation length taken from the
// first eight bytes.
//
// Checks the contract read() states: a Satisfiable read gives 1 to kMaxRangeSpecs ranges, each inside the
// representation, no byte in two of them (so never more bytes than the representation); any other verdict gives none;
// and reading the same field again gives the same answer.
#include "static/ByteRanges.h"

#include "FuzzSupport.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

using loopwire::files::ByteRange;
using loopwire::files::ByteRanges;
using loopwire::files::RangeVerdict;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::uint64_t length = 0;
    const std::size_t lengthBytes = std::min<std::size_t>(size, sizeof length);
    std::memcpy(&length, data, lengthBytes);
    const std::string_view field(reinterpret_cast<const char*>(data) + lengthBytes, size - lengthBytes);
    ByteRanges ranges;
    const RangeVerdict verdict = ranges.read(field, length);
    if (verdict != RangeVerdict::Satisfiable) {
        FUZZ_CHECK(ranges.ranges().empty());
    } else {
        FUZZ_CHECK(!ranges.ranges().empty() && ranges.ranges().size() <= ByteRanges::kMaxRangeSpecs);
        std::vector<ByteRange> sorted(ranges.ranges().begin(), ranges.ranges().end());
        std::sort(sorted.begin(), sorted.end(),
                  [](const ByteRange& a, const ByteRange& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            FUZZ_CHECK(sorted[i].first <= sorted[i].last && sorted[i].last < length);
            if (i > 0) FUZZ_CHECK(sorted[i - 1].last < sorted[i].first);
        }
        FUZZ_CHECK(ranges.totalBytes() <= length);
    }
    ByteRanges again;
    FUZZ_CHECK(again.read(field, length) == verdict);
    FUZZ_CHECK(again.ranges().size() == ranges.ranges().size());
    for (std::size_t i = 0; i < ranges.ranges().size(); ++i) {
        FUZZ_CHECK(again.ranges()[i].first == ranges.ranges()[i].first);
        FUZZ_CHECK(again.ranges()[i].last == ranges.ranges()[i].last);
    }
    return 0;
}
