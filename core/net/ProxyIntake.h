// ProxyIntake: the part of a Socket that reads the PROXY header a connection may start with, before anything else
// reads its bytes (before the HTTP parser, before the TLS handshake), by its server's ProxyPolicy.
//
// The Socket gives it every read until it has decided (take()), and then never again: it costs nothing after the
// first read. A header that arrives whole in the first read (the usual case) is read in place, without a copy or
// an allocation; one split across reads is kept (carried, at most limits::kMaxProxyHeaderBytes, in a buffer
// allocated then) and put back in front of the next read (restoreCarried()). What the header named goes to the
// Socket, which keeps it.
#pragma once

#include "ProxyPolicy.h"
#include "SocketAddress.h"
#include "base/ByteBuffer.h"

#include <cstddef>
#include <memory>
#include <string_view>

namespace loopwire {

class ProxyIntake {
public:
    enum class Verdict : std::uint8_t {
        Pass,    // decided: the bytes after `consumed` belong to the connection's protocol
        Wait,    // a header has begun: the bytes are carried until the next read
        Reject,  // close the connection: a malformed or untrusted header, or none where one is required
    };

    // With no policy (or an Off one), decided from the start.
    explicit ProxyIntake(const ProxyPolicy* policy) noexcept
        : policy_(policy != nullptr && policy->mode() != ProxyProtocol::Off ? policy : nullptr) {}

    bool awaiting() const noexcept { return policy_ != nullptr; }
    const ProxyPolicy* policy() const noexcept { return policy_; }

    // Copies the bytes carried from earlier reads to the front of buffer (capacity bytes); returns how many.
    std::size_t restoreCarried(char* buffer, std::size_t capacity) noexcept;

    // Decides on bytes, every byte the connection has received (the carried ones restored in front), from peer.
    // On Pass, consumed is the header's length (0 when none came) and proxied the client it named (left as it is
    // when it named none).
    Verdict take(std::string_view bytes, const SocketAddress& peer, std::size_t& consumed, SocketAddress& proxied);

private:
    const ProxyPolicy* policy_;
    std::unique_ptr<ByteBuffer> carried_;
};

}  // namespace loopwire
