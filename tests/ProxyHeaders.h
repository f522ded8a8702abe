// PROXY protocol headers for the tests (tests/unit/proxy/, tests/integration/ProxyProtocolTest.cpp), built byte by
// byte as a balancer sends them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace loopwire::test::proxy_headers {

inline constexpr std::string_view kSignature{"\r\n\r\n\0\r\nQUIT\n", 12};

inline std::string bytesOf(std::initializer_list<int> values) {
    std::string out;
    for (int value : values)
        out.push_back(static_cast<char>(value));
    return out;
}

// A version 2 header: command (0 LOCAL, 1 PROXY), family and transport byte, then body (addresses and TLVs).
inline std::string v2(std::uint8_t command, std::uint8_t familyAndTransport, std::string_view body) {
    return std::string(kSignature) +
           bytesOf({0x20 | command, familyAndTransport, static_cast<int>(body.size() >> 8),
                    static_cast<int>(body.size() & 0xFF)}) +
           std::string(body);
}

inline std::string tlv(std::uint8_t type, std::string_view value) {
    return bytesOf({type, static_cast<int>(value.size() >> 8), static_cast<int>(value.size() & 0xFF)}) +
           std::string(value);
}

// 203.0.113.7:51234 to 192.0.2.1:443.
inline std::string inetBlock() { return bytesOf({203, 0, 113, 7, 192, 0, 2, 1, 0xC8, 0x22, 0x01, 0xBB}); }

// [2001:db8::7]:5000 to [2001:db8::1]:80.
inline std::string inet6Block() {
    std::string source(16, '\0');
    source[0] = 0x20;
    source[1] = 0x01;
    source[2] = 0x0d;
    source[3] = static_cast<char>(0xb8);
    std::string destination = source;
    source[15] = 0x07;
    destination[15] = 0x01;
    return source + destination + bytesOf({0x13, 0x88, 0x00, 0x50});
}

}  // namespace loopwire::test::proxy_headers
