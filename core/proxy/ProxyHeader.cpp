// The two versions are told apart by their first bytes: version 1 starts with "PROXY ", version 2 with a 12-byte
// signature that no HTTP request or TLS record can start with. Until the bytes received decide, the answer is
// NeedMore; once they rule both out, Absent. Field by field the formats are haproxy.org's proxy-protocol.txt.
#include "proxy/ProxyHeader.h"

#include "base/Limits.h"

#include <arpa/inet.h>

#include <cstring>

namespace loopwire::proxy {

namespace {

constexpr std::string_view kV1Prefix = "PROXY ";
// "The maximum line length is 107 bytes, CRLF included" (section 2.1).
constexpr std::size_t kMaxV1Bytes = 107;
constexpr std::string_view kV2Signature{"\r\n\r\n\0\r\nQUIT\n", 12};
constexpr std::size_t kV2FixedBytes = 16;

constexpr std::uint8_t kCommandLocal = 0x0;
constexpr std::uint8_t kCommandProxy = 0x1;
constexpr std::uint8_t kFamilyUnspecified = 0x0;
constexpr std::uint8_t kFamilyInet = 0x1;
constexpr std::uint8_t kFamilyInet6 = 0x2;
constexpr std::uint8_t kFamilyUnix = 0x3;
constexpr std::uint8_t kTransportStream = 0x1;
constexpr std::uint8_t kTransportDatagram = 0x2;
// The address blocks of section 2.2: two addresses and two ports; two 108-byte paths for Unix sockets.
constexpr std::size_t kInetBlockBytes = 4 + 4 + 2 + 2;
constexpr std::size_t kInet6BlockBytes = 16 + 16 + 2 + 2;
constexpr std::size_t kUnixBlockBytes = 108 + 108;
constexpr std::size_t kTlvHeaderBytes = 3;

static_assert(limits::kMaxProxyHeaderBytes >= kV2FixedBytes + kUnixBlockBytes);

// Whether bytes and prefix agree on every byte they both have: bytes may still become prefix, or start with it.
bool agreesWith(std::string_view bytes, std::string_view prefix) noexcept {
    std::size_t common = bytes.size() < prefix.size() ? bytes.size() : prefix.size();
    // An empty view may have a null pointer, which memcmp must not be given even for zero bytes.
    return common == 0 || std::memcmp(bytes.data(), prefix.data(), common) == 0;
}

ProxyResult complete(std::size_t consumed) noexcept { return {ProxyStatus::Complete, consumed, ProxyError::None}; }
ProxyResult failed(ProxyError error) noexcept { return {ProxyStatus::Error, 0, error}; }
ProxyResult needMore() noexcept { return {ProxyStatus::NeedMore, 0, ProxyError::None}; }

std::uint16_t bigEndian16(const char* bytes) noexcept {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[0]) << 8 | static_cast<unsigned char>(bytes[1]));
}

// A decimal port: 1 to 5 digits, no leading zero (but "0"), at most 65535.
bool parsePort(std::string_view text, std::uint16_t& port) noexcept {
    if (text.empty() || text.size() > 5 || (text.size() > 1 && text.front() == '0')) return false;
    std::uint32_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (value > 65535) return false;
    port = static_cast<std::uint16_t>(value);
    return true;
}

// An address in the text form of family (AF_INET, AF_INET6), into out.
bool parseAddress(std::string_view text, int family, std::uint8_t* out) noexcept {
    char terminated[INET6_ADDRSTRLEN + 1];
    if (text.empty() || text.size() >= sizeof terminated) return false;
    std::memcpy(terminated, text.data(), text.size());
    terminated[text.size()] = '\0';
    return ::inet_pton(family, terminated, out) == 1;
}

// Splits off the field before the next single space.
bool nextField(std::string_view& line, std::string_view& field) noexcept {
    std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) return false;
    field = line.substr(0, space);
    line.remove_prefix(space + 1);
    return true;
}

}  // namespace

std::string_view nameOf(ProxyError error) noexcept {
    switch (error) {
        case ProxyError::None:
            return "none";
        case ProxyError::BadVersion:
            return "bad-version";
        case ProxyError::BadCommand:
            return "bad-command";
        case ProxyError::BadFamily:
            return "bad-family";
        case ProxyError::ShortAddress:
            return "short-address";
        case ProxyError::BadTlv:
            return "bad-tlv";
        case ProxyError::TooLong:
            return "too-long";
        case ProxyError::BadLine:
            return "bad-line";
        case ProxyError::BadAddress:
            return "bad-address";
        case ProxyError::BadPort:
            return "bad-port";
    }
    return "unknown";
}

ProxyResult ProxyHeader::parse(std::string_view bytes) noexcept {
    *this = ProxyHeader{};
    const bool mayBeV1 = agreesWith(bytes, kV1Prefix);
    const bool mayBeV2 = agreesWith(bytes, kV2Signature);
    if (!mayBeV1 && !mayBeV2) return {ProxyStatus::Absent, 0, ProxyError::None};

    if (mayBeV1) {
        std::string_view window = bytes.substr(0, kMaxV1Bytes);
        // The first LF ends the line, and must follow a CR: a bare LF is an error wherever it is, so that a prefix
        // of the line is refused for the same reason as the line.
        const std::size_t newline = window.find('\n');
        if (newline == std::string_view::npos) {
            return window.size() < kMaxV1Bytes ? needMore() : failed(ProxyError::TooLong);
        }
        if (window[newline - 1] != '\r') return failed(ProxyError::BadLine);
        const std::size_t lineEnd = newline - 1;
        version = 1;
        std::string_view line = window.substr(kV1Prefix.size(), lineEnd - kV1Prefix.size());
        if (line.substr(0, 7) == "UNKNOWN" && (line.size() == 7 || line[7] == ' ')) return complete(lineEnd + 2);
        std::string_view protocol;
        std::string_view source;
        std::string_view destination;
        std::string_view sourcePortText;
        if (!nextField(line, protocol) || !nextField(line, source) || !nextField(line, destination) ||
            !nextField(line, sourcePortText) || line.empty() || line.find(' ') != std::string_view::npos) {
            return failed(ProxyError::BadLine);
        }
        int addressFamily = 0;
        if (protocol == "TCP4") {
            family = Family::Inet4;
            addressFamily = AF_INET;
        } else if (protocol == "TCP6") {
            family = Family::Inet6;
            addressFamily = AF_INET6;
        } else {
            return failed(ProxyError::BadLine);
        }
        if (!parseAddress(source, addressFamily, sourceAddress) ||
            !parseAddress(destination, addressFamily, destinationAddress)) {
            return failed(ProxyError::BadAddress);
        }
        if (!parsePort(sourcePortText, sourcePort) || !parsePort(line, destinationPort)) {
            return failed(ProxyError::BadPort);
        }
        return complete(lineEnd + 2);
    }

    if (bytes.size() < kV2FixedBytes) return needMore();
    const auto versionAndCommand = static_cast<std::uint8_t>(bytes[12]);
    const auto familyAndTransport = static_cast<std::uint8_t>(bytes[13]);
    const std::size_t length = bigEndian16(bytes.data() + 14);
    if ((versionAndCommand >> 4) != 0x2) return failed(ProxyError::BadVersion);
    const std::uint8_t command = versionAndCommand & 0x0F;
    if (command != kCommandLocal && command != kCommandProxy) return failed(ProxyError::BadCommand);
    if (kV2FixedBytes + length > limits::kMaxProxyHeaderBytes) return failed(ProxyError::TooLong);
    const std::uint8_t addressFamily = familyAndTransport >> 4;
    const std::uint8_t transport = familyAndTransport & 0x0F;
    if (addressFamily > kFamilyUnix || transport > kTransportDatagram) return failed(ProxyError::BadFamily);
    if (bytes.size() < kV2FixedBytes + length) return needMore();
    version = 2;
    const std::size_t total = kV2FixedBytes + length;
    // LOCAL: the balancer's own connection (a health check); the block is discarded, whatever it holds.
    if (command == kCommandLocal || addressFamily == kFamilyUnspecified) return complete(total);
    if (transport != kTransportStream) return failed(ProxyError::BadFamily);

    const char* block = bytes.data() + kV2FixedBytes;
    std::size_t blockBytes = 0;
    switch (addressFamily) {
        case kFamilyInet:
        case kFamilyInet6: {
            // Two addresses, then two ports.
            const std::size_t addressBytes = addressFamily == kFamilyInet ? 4 : 16;
            blockBytes = addressFamily == kFamilyInet ? kInetBlockBytes : kInet6BlockBytes;
            if (length < blockBytes) return failed(ProxyError::ShortAddress);
            family = addressFamily == kFamilyInet ? Family::Inet4 : Family::Inet6;
            std::memcpy(sourceAddress, block, addressBytes);
            std::memcpy(destinationAddress, block + addressBytes, addressBytes);
            sourcePort = bigEndian16(block + 2 * addressBytes);
            destinationPort = bigEndian16(block + 2 * addressBytes + 2);
            break;
        }
        default:
            blockBytes = kUnixBlockBytes;
            if (length < blockBytes) return failed(ProxyError::ShortAddress);
            family = Family::Unix;
            break;
    }
    // TLVs (type, 16-bit length, value) follow the addresses to the end: each must fit, and none is needed here.
    std::size_t offset = blockBytes;
    while (offset < length) {
        if (length - offset < kTlvHeaderBytes) return failed(ProxyError::BadTlv);
        const std::size_t valueBytes = bigEndian16(block + offset + 1);
        if (valueBytes > length - offset - kTlvHeaderBytes) return failed(ProxyError::BadTlv);
        offset += kTlvHeaderBytes + valueBytes;
    }
    return complete(total);
}

}  // namespace loopwire::proxy
