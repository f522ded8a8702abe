// Fuzz target for core/compress/AcceptEncoding: any bytes as an Accept-Encoding field, with the offer and the
// server's preference taken from the first byte (its low four bits: the codings offered; the next three: one of the
// six orders of brotli, zstd and gzip, gzip alone, or none).
//
// Checks the contract choose() states: the choice is identity or an offered coding; a choice that is not acceptable
// is identity; the client's q=0 is obeyed (reading "<coding>;q=0" as a further line never leaves that coding
// chosen); withdrawing an offer that was not chosen changes nothing; cutting the field in two lines at a comma
// changes nothing; and reading and choosing again gives the same answer.
#include "compress/AcceptEncoding.h"

#include "FuzzSupport.h"

#include <array>
#include <span>
#include <string>
#include <string_view>

using loopwire::compress::AcceptEncoding;
using loopwire::compress::CodingChoice;
using loopwire::compress::CodingSet;
using loopwire::compress::ContentCoding;
using loopwire::compress::contentCodingToken;

namespace {

constexpr ContentCoding kIdentity = ContentCoding::Identity;
constexpr ContentCoding kGzip = ContentCoding::Gzip;
constexpr ContentCoding kBrotli = ContentCoding::Brotli;
constexpr ContentCoding kZstd = ContentCoding::Zstd;
constexpr std::array<ContentCoding, 4> kCodings{kIdentity, kGzip, kBrotli, kZstd};

constexpr std::array<std::array<ContentCoding, 3>, 6> kOrders{{{kBrotli, kZstd, kGzip},
                                                               {kBrotli, kGzip, kZstd},
                                                               {kZstd, kBrotli, kGzip},
                                                               {kZstd, kGzip, kBrotli},
                                                               {kGzip, kBrotli, kZstd},
                                                               {kGzip, kZstd, kBrotli}}};

std::span<const ContentCoding> preferenceOf(unsigned index) {
    if (index < kOrders.size()) return kOrders[index];
    if (index == kOrders.size()) return {kOrders[4].data(), 1};  // gzip alone
    return {};
}

CodingChoice choose(std::string_view first, std::string_view second, CodingSet offered,
                    std::span<const ContentCoding> preference) {
    AcceptEncoding accept;
    accept.read(first);
    accept.read(second);
    return accept.choose(offered, preference);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    CodingSet offered;
    for (ContentCoding coding : kCodings) {
        if ((data[0] >> static_cast<unsigned>(coding)) & 1) offered.add(coding);
    }
    const std::span<const ContentCoding> preference = preferenceOf((data[0] >> 4) & 7);
    const std::string_view field(reinterpret_cast<const char*>(data) + 1, size - 1);

    AcceptEncoding accept;
    accept.read(field);
    const CodingChoice choice = accept.choose(offered, preference);
    FUZZ_CHECK(choice.coding == kIdentity || offered.contains(choice.coding));
    FUZZ_CHECK(choice.acceptable || choice.coding == kIdentity);
    FUZZ_CHECK(accept.choose(offered, preference) == choice);
    FUZZ_CHECK(choose(field, {}, offered, preference) == choice);

    if (choice.coding != kIdentity) {
        const std::string forbid = std::string(contentCodingToken(choice.coding)) + ";q=0";
        FUZZ_CHECK(choose(field, forbid, offered, preference).coding != choice.coding);
    }
    for (ContentCoding other : kCodings) {
        if (other == kIdentity || other == choice.coding || !offered.contains(other)) continue;
        CodingSet fewer = offered;
        FUZZ_CHECK(accept.choose(fewer.remove(other), preference) == choice);
    }
    if (const std::size_t comma = field.find(','); comma != std::string_view::npos) {
        FUZZ_CHECK(choose(field.substr(0, comma), field.substr(comma + 1), offered, preference) == choice);
    }
    return 0;
}
