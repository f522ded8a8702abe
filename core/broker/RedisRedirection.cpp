#include "RedisRedirection.h"

#include "broker/RedisSlot.h"

namespace loopwire::broker {

namespace {

// digits as a number of at most `max`; false when they are empty, not all digits, or too large.
bool readNumber(std::string_view digits, unsigned max, unsigned& out) noexcept {
    if (digits.empty()) return false;
    unsigned value = 0;
    for (const char digit : digits) {
        if (digit < '0' || digit > '9') return false;
        value = value * 10 + static_cast<unsigned>(digit - '0');
        if (value > max) return false;
    }
    out = value;
    return true;
}

}  // namespace

bool RedisRedirection::read(std::string_view error) noexcept {
    bool isAsk = false;
    if (error.starts_with("MOVED ")) {
        error.remove_prefix(6);
    } else if (error.starts_with("ASK ")) {
        error.remove_prefix(4);
        isAsk = true;
    } else {
        return false;
    }
    const std::size_t space = error.find(' ');
    const std::size_t colon = error.rfind(':');
    if (space == std::string_view::npos || colon == std::string_view::npos || colon < space) return false;
    unsigned slotNumber = 0;
    unsigned portNumber = 0;
    if (!readNumber(error.substr(0, space), RedisSlot::kSlotCount - 1, slotNumber)) return false;
    if (!readNumber(error.substr(colon + 1), 65535, portNumber) || portNumber == 0) return false;
    std::string_view address = error.substr(space + 1, colon - space - 1);
    if (address.size() >= 2 && address.front() == '[' && address.back() == ']')
        address = address.substr(1, address.size() - 2);
    ask = isAsk;
    slot = static_cast<std::uint16_t>(slotNumber);
    port = static_cast<std::uint16_t>(portNumber);
    host = address;
    return true;
}

}  // namespace loopwire::broker
