#include "ws/ClosePayload.h"

#include "ws/Utf8Validator.h"

#include <cstring>

namespace loopwire::ws {

bool ClosePayload::isSendableCode(std::uint16_t code) noexcept {
    // 1000-1003 and 1007-1011 are defined by RFC 6455 for endpoints to send; 1004 is reserved, 1005 and 1006
    // stand for "no code" and "no close frame" and are never sent; 1012-2999 are reserved for the protocol and its
    // extensions (unassigned by RFC 6455); 3000-3999 are registered for libraries and frameworks, 4000-4999 are
    // private.
    if (code >= 1000 && code <= 1003) return true;
    if (code >= 1007 && code <= 1011) return true;
    return code >= 3000 && code <= 4999;
}

bool ClosePayload::isWritableCode(std::uint16_t code) noexcept {
    return isSendableCode(code) || (code >= 1012 && code <= 1014);
}

ClosePayload ClosePayload::read(std::string_view payload) noexcept {
    ClosePayload result;
    if (payload.empty()) return result;
    if (payload.size() == 1) {
        result.failCode = kCloseProtocolError;
        return result;
    }
    result.code = static_cast<std::uint16_t>(static_cast<unsigned char>(payload[0]) << 8 |
                                             static_cast<unsigned char>(payload[1]));
    result.reason = payload.substr(2);
    if (!isSendableCode(result.code)) {
        result.failCode = kCloseProtocolError;
    } else if (!Utf8Validator::isValid(result.reason)) {
        result.failCode = kCloseInvalidPayload;
    }
    return result;
}

std::size_t ClosePayload::write(std::uint16_t code, std::string_view reason, char* out) noexcept {
    if (code == 0 || code == kCloseNoStatus) return 0;
    out[0] = static_cast<char>(code >> 8);
    out[1] = static_cast<char>(code & 0xFF);
    if (reason.size() > kMaxCloseReasonBytes) {
        // Back up over continuation bytes so that the cut does not split a character.
        std::size_t cut = kMaxCloseReasonBytes;
        while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80)
            --cut;
        reason = reason.substr(0, cut);
    }
    if (!reason.empty()) std::memcpy(out + 2, reason.data(), reason.size());
    return 2 + reason.size();
}

}  // namespace loopwire::ws
