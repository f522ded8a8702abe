#include "ws/DeflateNegotiation.h"

#include "http/HttpSyntax.h"

#include <cstring>

namespace loopwire::ws {

namespace {

using http_syntax::equalsLowerCase;
using http_syntax::isOws;
using http_syntax::isTokenChar;

// A cursor over the header, by RFC 6455 section 9.1's grammar. Each read skips the whitespace before it.
class Reader {
public:
    explicit Reader(std::string_view text) noexcept : text_(text) {}

    bool atEnd() noexcept {
        skipOws();
        return at_ == text_.size();
    }
    // Consumes c if it is next.
    bool take(char c) noexcept {
        skipOws();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    char peek() noexcept {
        skipOws();
        return at_ < text_.size() ? text_[at_] : '\0';
    }
    // A token, or "" when none is next.
    std::string_view token() noexcept {
        skipOws();
        const std::size_t start = at_;
        while (at_ < text_.size() && isTokenChar(static_cast<unsigned char>(text_[at_])))
            ++at_;
        return text_.substr(start, at_ - start);
    }
    // A quoted string's content, false when it is not closed (escapes are kept: parameter values never need them,
    // and one makes the value invalid below).
    bool quoted(std::string_view& content) noexcept {
        skipOws();
        if (at_ >= text_.size() || text_[at_] != '"') return false;
        const std::size_t start = ++at_;
        while (at_ < text_.size() && text_[at_] != '"') {
            if (text_[at_] == '\\') ++at_;
            ++at_;
        }
        if (at_ >= text_.size()) return false;
        content = text_.substr(start, at_ - start);
        ++at_;
        return true;
    }

private:
    void skipOws() noexcept {
        while (at_ < text_.size() && isOws(text_[at_]))
            ++at_;
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

// A window size value: 1 or 2 decimal digits from 8 to 15; 0 when it is not one.
std::uint8_t windowBits(std::string_view value) noexcept {
    if (value.empty() || value.size() > 2) return 0;
    unsigned number = 0;
    for (char c : value) {
        if (c < '0' || c > '9') return 0;
        number = number * 10 + static_cast<unsigned>(c - '0');
    }
    // "08" is not the shortest form (RFC 7692 section 7.1.2.1 asks for 1*DIGIT without leading zeros).
    if (value.size() == 2 && value[0] == '0') return 0;
    return number >= kMinWindowBits && number <= kMaxWindowBits ? static_cast<std::uint8_t>(number) : 0;
}

// The parameters of one permessage-deflate offer.
struct Offer {
    bool valid = true;
    bool serverNoContextTakeover = false;
    bool clientNoContextTakeover = false;
    std::uint8_t serverMaxWindowBits = 0;  // 0: not offered
    bool clientMaxWindowBits = false;      // offered (with or without a value)
    std::uint8_t clientMaxWindowValue = kMaxWindowBits;
    unsigned seen = 0;  // bit per parameter, to refuse duplicates
};

enum ParameterBit : unsigned {
    kServerNoContextTakeover = 1,
    kClientNoContextTakeover = 2,
    kServerMaxWindowBits = 4,
    kClientMaxWindowBits = 8,
};

void applyParameter(Offer& offer, std::string_view name, bool hasValue, std::string_view value) noexcept {
    auto once = [&offer](unsigned bit) {
        if ((offer.seen & bit) != 0) offer.valid = false;
        offer.seen |= bit;
    };
    if (equalsLowerCase(name, "server_no_context_takeover")) {
        once(kServerNoContextTakeover);
        if (hasValue) offer.valid = false;
        offer.serverNoContextTakeover = true;
    } else if (equalsLowerCase(name, "client_no_context_takeover")) {
        once(kClientNoContextTakeover);
        if (hasValue) offer.valid = false;
        offer.clientNoContextTakeover = true;
    } else if (equalsLowerCase(name, "server_max_window_bits")) {
        once(kServerMaxWindowBits);
        offer.serverMaxWindowBits = hasValue ? windowBits(value) : 0;
        if (offer.serverMaxWindowBits == 0) offer.valid = false;
    } else if (equalsLowerCase(name, "client_max_window_bits")) {
        once(kClientMaxWindowBits);
        offer.clientMaxWindowBits = true;
        if (hasValue) {
            offer.clientMaxWindowValue = windowBits(value);
            if (offer.clientMaxWindowValue == 0) offer.valid = false;
        }
    } else {
        offer.valid = false;
    }
}

// The agreement for one valid offer, or a declined one when the server cannot honour it.
DeflateAgreement agree(const Offer& offer, const DeflateSettings& settings) noexcept {
    DeflateAgreement agreement;
    std::uint8_t serverWindow = settings.serverMaxWindowBits;
    if (offer.serverMaxWindowBits != 0) {
        if (offer.serverMaxWindowBits < kMinCompressorWindowBits) return agreement;
        if (offer.serverMaxWindowBits < serverWindow) serverWindow = offer.serverMaxWindowBits;
        agreement.announceServerWindow = true;
    }
    if (serverWindow < kMinCompressorWindowBits) serverWindow = kMinCompressorWindowBits;
    agreement.accepted = true;
    agreement.serverNoContextTakeover = offer.serverNoContextTakeover || settings.serverNoContextTakeover;
    agreement.serverMaxWindowBits = serverWindow;
    agreement.clientNoContextTakeover = offer.clientNoContextTakeover || settings.clientNoContextTakeover;
    if (offer.clientMaxWindowBits) {
        const std::uint8_t limit = offer.clientMaxWindowValue;
        agreement.clientMaxWindowBits = settings.clientMaxWindowBits < limit ? settings.clientMaxWindowBits : limit;
        agreement.announceClientWindow = true;
    } else {
        // The client was not asked to limit its window, so it may use the largest.
        agreement.clientMaxWindowBits = kMaxWindowBits;
    }
    return agreement;
}

char* append(char* out, std::string_view text) noexcept {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

char* appendBits(char* out, std::uint8_t bits) noexcept {
    if (bits >= 10) *out++ = static_cast<char>('0' + bits / 10);
    *out++ = static_cast<char>('0' + bits % 10);
    return out;
}

}  // namespace

DeflateAgreement DeflateAgreement::negotiate(std::string_view header, const DeflateSettings& settings) noexcept {
    if (!settings.enabled) return {};
    Reader reader(header);
    DeflateAgreement chosen;
    while (!reader.atEnd()) {
        if (reader.take(',')) continue;  // empty list elements are allowed (RFC 9110 section 5.6.1)
        const std::string_view name = reader.token();
        if (name.empty()) return {};
        Offer offer;
        while (reader.take(';')) {
            const std::string_view parameter = reader.token();
            if (parameter.empty()) return {};
            std::string_view value;
            bool hasValue = false;
            if (reader.take('=')) {
                hasValue = true;
                if (reader.peek() == '"') {
                    if (!reader.quoted(value)) return {};
                } else {
                    value = reader.token();
                    if (value.empty()) return {};
                }
            }
            applyParameter(offer, parameter, hasValue, value);
        }
        if (!reader.atEnd() && !reader.take(',')) return {};
        if (!chosen.accepted && offer.valid && equalsLowerCase(name, "permessage-deflate")) {
            chosen = agree(offer, settings);
        }
    }
    return chosen;
}

std::size_t DeflateAgreement::format(char* out) const noexcept {
    if (!accepted) return 0;
    char* p = append(out, "permessage-deflate");
    if (serverNoContextTakeover) p = append(p, "; server_no_context_takeover");
    if (clientNoContextTakeover) p = append(p, "; client_no_context_takeover");
    if (announceServerWindow) p = appendBits(append(p, "; server_max_window_bits="), serverMaxWindowBits);
    if (announceClientWindow) p = appendBits(append(p, "; client_max_window_bits="), clientMaxWindowBits);
    return static_cast<std::size_t>(p - out);
}

}  // namespace loopwire::ws
