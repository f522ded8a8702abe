// ProxyHeader: the PROXY protocol header a load balancer (HAProxy, AWS NLB, nginx stream) sends before a
// connection's first byte to say whose connection it is: version 1 (a text line) and version 2 (binary), as
// haproxy.org's proxy-protocol.txt specifies them.
//
// Pure: it reads bytes and returns a result, never sees a socket, and allocates nothing. parse() is given all the
// bytes the connection has received so far, from its first one, and answers, with the one result shape of every
// loopwire parser:
//   - Complete: a whole header, ending consumed bytes in; what it says is in the ProxyHeader;
//   - NeedMore: the bytes are the start of a header (or could still turn out to be one); call again with more;
//   - Absent: the bytes are no PROXY header at all (an HTTP request, a TLS ClientHello): the connection has none;
//   - Error: a header, malformed (the error says how); the connection must be closed.
// A header is short (v1 at most 107 bytes, v2 at most limits::kMaxProxyHeaderBytes here), so a call on more bytes
// parses again from the start rather than keeping state; the caller keeps the bytes of an unfinished header.
//
// What a header can say: the client's address and port, and the address it connected to (TCP over IPv4 or IPv6);
// a Unix socket's path (not kept); or nothing (a v2 LOCAL command, a health check from the balancer itself; v1
// UNKNOWN; an unspecified family): then the connection's own peer stands. Version 2's TLVs are checked to lie
// within the header, one after the other, and skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire::proxy {

enum class ProxyError : std::uint8_t {
    None,
    BadVersion,    // v2: a version other than 2
    BadCommand,    // v2: a command other than LOCAL and PROXY
    BadFamily,     // v2: an address family or transport that is not TCP over IPv4, IPv6 or a Unix stream socket
    ShortAddress,  // v2: an address block shorter than its family's
    BadTlv,        // v2: a TLV that runs past the end of the header
    TooLong,       // v2: longer than limits::kMaxProxyHeaderBytes; v1: no CRLF within 107 bytes
    BadLine,       // v1: not "PROXY <protocol> <source> <destination> <source port> <destination port>\r\n"
    BadAddress,    // v1: an address that is not an IPv4 (TCP4) or IPv6 (TCP6) address
    BadPort,       // v1: a port that is not a decimal from 0 to 65535
};

// A short name for each error ("bad-version"), for logs and tests.
std::string_view nameOf(ProxyError error) noexcept;

enum class ProxyStatus : std::uint8_t { Complete, NeedMore, Absent, Error };

struct ProxyResult {
    ProxyStatus status = ProxyStatus::NeedMore;
    std::size_t consumed = 0;  // the header's length, when Complete
    ProxyError error = ProxyError::None;
};

struct ProxyHeader {
    enum class Family : std::uint8_t {
        Unknown,  // the header names no address (LOCAL, UNKNOWN, an unspecified family): the peer stands
        Inet4,
        Inet6,
        Unix,  // a Unix socket: no address or port is kept
    };

    std::uint8_t version = 0;  // 1 or 2
    Family family = Family::Unknown;
    // The client's and the connection's addresses in network order: 4 bytes for Inet4, 16 for Inet6.
    std::uint8_t sourceAddress[16] = {};
    std::uint8_t destinationAddress[16] = {};
    std::uint16_t sourcePort = 0;
    std::uint16_t destinationPort = 0;

    std::size_t addressLength() const noexcept {
        return family == Family::Inet4 ? 4 : family == Family::Inet6 ? 16 : 0;
    }
    // Whether the header names a client (Inet4 or Inet6) that should stand for the connection's peer.
    bool namesClient() const noexcept { return family == Family::Inet4 || family == Family::Inet6; }

    // Reads a header from the start of bytes (see the file comment); fills *this when Complete.
    ProxyResult parse(std::string_view bytes) noexcept;
};

}  // namespace loopwire::proxy
