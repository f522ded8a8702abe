// Fuzz target for core/proxy/ProxyHeader: any bytes, as the start of a connection.
//
// Checks the contract parse() states: a Complete header consumed at most the bytes given, and parsing exactly those
// bytes again gives the same header; an address family comes with its address length; and every prefix of the
// input is answered consistently with the whole: a prefix of a header (or of bytes that may still become one) needs
// more, a prefix of an error fails the same way or needs more, and a prefix never completes with a different length.
#include "proxy/ProxyHeader.h"

#include "FuzzSupport.h"

#include <cstring>
#include <string_view>

namespace {

using loopwire::proxy::ProxyHeader;
using loopwire::proxy::ProxyResult;
using loopwire::proxy::ProxyStatus;

bool sameHeader(const ProxyHeader& a, const ProxyHeader& b) {
    return a.version == b.version && a.family == b.family && a.sourcePort == b.sourcePort &&
           a.destinationPort == b.destinationPort && std::memcmp(a.sourceAddress, b.sourceAddress, 16) == 0 &&
           std::memcmp(a.destinationAddress, b.destinationAddress, 16) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    ProxyHeader whole;
    const ProxyResult result = whole.parse(input);
    if (result.status == ProxyStatus::Complete) {
        FUZZ_CHECK(result.consumed > 0 && result.consumed <= size);
        FUZZ_CHECK(whole.version == 1 || whole.version == 2);
        FUZZ_CHECK(whole.addressLength() ==
                   (whole.namesClient() ? (whole.family == ProxyHeader::Family::Inet4 ? 4u : 16u) : 0u));
        ProxyHeader again;
        const ProxyResult exact = again.parse(input.substr(0, result.consumed));
        FUZZ_CHECK(exact.status == ProxyStatus::Complete && exact.consumed == result.consumed);
        FUZZ_CHECK(sameHeader(whole, again));
    }
    if (result.status != ProxyStatus::Complete) FUZZ_CHECK(result.consumed == 0);
    // Prefixes: at most a few hundred, evenly spread, so that long inputs stay fast.
    const std::size_t step = size / 256 + 1;
    for (std::size_t length = 0; length < size; length += step) {
        ProxyHeader partial;
        const ProxyResult prefix = partial.parse(input.substr(0, length));
        if (prefix.status == ProxyStatus::Complete) {
            FUZZ_CHECK(result.status == ProxyStatus::Complete && prefix.consumed == result.consumed);
        } else if (prefix.status == ProxyStatus::Error) {
            FUZZ_CHECK(result.status == ProxyStatus::Error && prefix.error == result.error);
        } else if (prefix.status == ProxyStatus::Absent) {
            FUZZ_CHECK(result.status == ProxyStatus::Absent);
        }
    }
    return 0;
}
