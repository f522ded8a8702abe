// TlsClient: the client side of one TLS connection (OpenSSL, on memory BIOs), for the connections loopwire makes
// itself (the pub/sub broker's link to a Redis behind rediss://).
//
// No I/O of its own: the owner feeds receive() the ciphertext it read, gets the plaintext appended to a buffer it
// owns, gives send() plaintext once established(), and sends what output() holds (handshake records and
// encrypted data), consuming it as the kernel takes it. start() writes the ClientHello into output().
// Verification: the server's certificate must chain to the CA file given (else to the system's store) and name
// serverName (a host name, or an IP address); verify = false turns both off (tests, self-signed servers).
// Allocation: the SSL_CTX and SSL at create() (per connection attempt: set-up time), and OpenSSL's record buffers.
// Loop thread only.
#pragma once

#include "base/ByteBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

using SSL_CTX = struct ssl_ctx_st;
using SSL = struct ssl_st;

namespace loopwire {

class TlsClient {
public:
    struct Options {
        std::string serverName;  // what the certificate must name; also sent as SNI when it is a host name
        std::string caFile;      // PEM; empty: the system's certificate store
        bool verify = true;
    };

    enum class Status : std::uint8_t {
        Handshaking,
        Established,
        Closed,  // close_notify went one way or the other: no more data
        Failed,  // a handshake failure (error() says why) or a corrupt record
    };

    // A client ready to start(), or null with error saying why (a CA file that does not load).
    static std::unique_ptr<TlsClient> create(const Options& options, std::string& error);
    ~TlsClient();
    TlsClient(const TlsClient&) = delete;
    TlsClient& operator=(const TlsClient&) = delete;

    void start();
    // Takes all of cipher; appends the plaintext it carries to plain. Handshake replies go to output().
    Status receive(std::string_view cipher, ByteBuffer& plain);
    // Encrypts plain into output(). False when not established (or failed).
    bool send(std::string_view plain);
    // Writes close_notify into output() (once established): a graceful end, after which send() refuses.
    void closeNotify();

    ByteBuffer& output() noexcept { return output_; }
    Status status() const noexcept { return status_; }
    bool established() const noexcept { return status_ == Status::Established; }
    const std::string& error() const noexcept { return error_; }

private:
    TlsClient() = default;
    void drainOutput();
    void failWith(const char* what);

    SSL_CTX* context_ = nullptr;
    SSL* ssl_ = nullptr;
    ByteBuffer output_;
    Status status_ = Status::Handshaking;
    std::string error_;
};

}  // namespace loopwire
