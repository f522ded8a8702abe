// Fuzz target for ws::DeflateAgreement::negotiate (permessage-deflate negotiation).
//
// Input: byte 0 chooses the server's settings (bit 0 shared compressor, bit 1 shared decompressor, bits 2-4 and
// 5-7 the compressor's and decompressor's window, 8 + value), the rest is a Sec-WebSocket-Extensions header. An
// exactly sized heap copy of the header is negotiated; an agreement must stay within what the settings and the
// RFC allow, its answer must fit kMaxDeflateResponseBytes, and the answer, offered back as a header, must be
// accepted with the very same agreement (the answer is a valid offer of what was agreed).
#include "ws/DeflateNegotiation.h"

#include "FuzzSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

namespace {

using namespace loopwire::ws;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    DeflateSettings settings;
    settings.enabled = true;
    settings.serverNoContextTakeover = (data[0] & 1) != 0;
    settings.clientNoContextTakeover = (data[0] & 2) != 0;
    settings.serverMaxWindowBits = static_cast<std::uint8_t>(8 + ((data[0] >> 2) & 7));
    settings.clientMaxWindowBits = static_cast<std::uint8_t>(8 + ((data[0] >> 5) & 7));

    std::unique_ptr<char[]> exact(new char[size - 1]);
    if (size > 1) std::memcpy(exact.get(), data + 1, size - 1);
    const DeflateAgreement agreement = DeflateAgreement::negotiate(std::string_view(exact.get(), size - 1), settings);
    char out[kMaxDeflateResponseBytes];
    const std::size_t length = agreement.format(out);
    if (!agreement.accepted) {
        FUZZ_CHECK(length == 0);
        return 0;
    }
    FUZZ_CHECK(length <= kMaxDeflateResponseBytes);
    FUZZ_CHECK(std::string_view(out, length).substr(0, 18) == "permessage-deflate");
    FUZZ_CHECK(agreement.serverMaxWindowBits >= kMinCompressorWindowBits);
    FUZZ_CHECK(agreement.serverMaxWindowBits <= settings.serverMaxWindowBits ||
               agreement.serverMaxWindowBits == kMinCompressorWindowBits);
    FUZZ_CHECK(agreement.clientMaxWindowBits >= kMinWindowBits && agreement.clientMaxWindowBits <= kMaxWindowBits);
    if (!agreement.announceClientWindow) FUZZ_CHECK(agreement.clientMaxWindowBits == kMaxWindowBits);
    if (settings.serverNoContextTakeover) FUZZ_CHECK(agreement.serverNoContextTakeover);
    if (settings.clientNoContextTakeover) FUZZ_CHECK(agreement.clientNoContextTakeover);

    const DeflateAgreement again = DeflateAgreement::negotiate(std::string_view(out, length), settings);
    FUZZ_CHECK(again.accepted);
    FUZZ_CHECK(again.serverNoContextTakeover == agreement.serverNoContextTakeover);
    FUZZ_CHECK(again.clientNoContextTakeover == agreement.clientNoContextTakeover);
    FUZZ_CHECK(again.serverMaxWindowBits == agreement.serverMaxWindowBits);
    FUZZ_CHECK(again.clientMaxWindowBits == agreement.clientMaxWindowBits);
    return 0;
}
