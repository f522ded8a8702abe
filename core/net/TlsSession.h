// TlsSession: the server side of one TLS connection (OpenSSL's SSL object), driven by the Socket that owns it.
//
// No I/O of its own: it reads ciphertext from its context's input (TlsContext::setInput, the bytes the socket
// just received) and writes every record it makes into its context's output(), which the socket sends (or
// queues as backpressure) right after the call. So the kernel sees one send for a whole corked batch, however
// many records it holds, and the handshake never blocks the loop: each step runs when its bytes arrive.
// Calls: decrypt() for each batch of received bytes (it advances the handshake first), encrypt() for plaintext
// to send once established, closeNotify() before a graceful end.
// Allocation: OpenSSL's session object at accept; its buffers when in use (freed when idle with
// ssl_prefer_low_memory_usage). Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using SSL = struct ssl_st;

namespace loopwire {

class TlsContext;

class TlsSession {
public:
    enum class ReadResult {
        Ok,          // plaintext (maybe none) was produced; more may follow with the next bytes
        PeerClosed,  // the peer sent close_notify: no more data will come
        Failed,      // a handshake failure or a corrupt record: close the connection (after sending output())
    };

    // The handshake must end before deadlineMs (the loop's timeout clock). Returns null when OpenSSL cannot
    // create the session (out of memory).
    static TlsSession* create(TlsContext& context, std::uint64_t handshakeDeadlineMs) noexcept;
    ~TlsSession();
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;

    TlsContext& context() const noexcept { return context_; }
    bool isEstablished() const noexcept { return established_; }
    // The deadline of the handshake, 0 once it has finished.
    std::uint64_t handshakeDeadlineMs() const noexcept { return established_ ? 0 : handshakeDeadlineMs_; }

    // Consumes all of cipher (partial records are kept for the next call) and writes the plaintext it holds to
    // plain. plainCapacity must be at least length plus one record (kMaxRecordBytes): the plaintext of the bytes
    // kept from the last call comes out too.
    ReadResult decrypt(const char* cipher, std::size_t length, char* plain, std::size_t plainCapacity,
                       std::size_t& plainLength) noexcept;
    // Encrypts plain into output() (one record per 16 KiB). Returns false when the session cannot send: its
    // handshake is not finished, or it failed.
    bool encrypt(std::string_view plain) noexcept;
    // Writes close_notify into output(), once; returns whether it was written now.
    bool closeNotify() noexcept;

    // The server name the client asked for (SNI), or empty.
    std::string_view serverName() const noexcept;
    // The client's certificate, PEM, when it sent one (an empty string otherwise). Allocates.
    std::string peerCertificatePem() const;
    // The negotiated ALPN protocol, or empty.
    std::string_view alpnProtocol() const noexcept;
    // The data of the server name the handshake picked (TlsContext::setServerNameData), or null.
    void* serverNameData() const noexcept { return serverNameData_; }
    void setServerNameData(void* data) noexcept { serverNameData_ = data; }

    // Bytes in one TLS record at most: 2^14 of plaintext plus what TLS 1.2 allows for padding, MAC and header.
    static constexpr std::size_t kMaxRecordBytes = 16384 + 2048 + 5;

private:
    TlsSession(TlsContext& context, SSL* ssl, std::uint64_t handshakeDeadlineMs) noexcept;

    TlsContext& context_;
    SSL* ssl_;
    std::uint64_t handshakeDeadlineMs_;
    void* serverNameData_ = nullptr;
    bool established_ = false;
    bool failed_ = false;
    bool closeNotifySent_ = false;
};

}  // namespace loopwire
