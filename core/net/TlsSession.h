// TlsSession: the server side of one TLS connection (OpenSSL's SSL object), held by value in the Socket it serves.
//
// A default-constructed session is inactive (the socket speaks plain TCP); start() makes it a server session of a
// TlsContext. It does no I/O of its own, and it keeps no buffer: each call is given the ciphertext to read and the
// buffer its records go to (the loop's record buffer, which the socket sends, or queues as backpressure, right after
// the call), so the kernel sees one send for a whole corked batch however many records it holds, and the handshake
// never blocks the loop: each step runs when its bytes arrive.
// Calls: decrypt() for each batch of received bytes (it advances the handshake first), encrypt() for plaintext to
// send once established, closeNotify() before a graceful end. Each one runs as a TlsContext::Call, which points the
// context's one BIO at its buffers and back at the call it interrupted (another session's) when it returns; it checks
// that this session is not inside a call already, that plaintext has room for what ciphertext may hold, and on exit
// that all of the ciphertext was taken.
// Allocation: OpenSSL's SSL object at start(); its buffers while in use (freed when idle with
// ssl_prefer_low_memory_usage). Loop thread only.
#pragma once

#include "base/ByteBuffer.h"

#include <cstddef>
#include <cstdint>
#include <span>
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
        Failed,      // a handshake failure or a corrupt record: close the connection (after sending the records)
    };

    TlsSession() noexcept = default;
    // Takes other's connection (a socket that changes protocol keeps its TLS); other ends inactive.
    TlsSession(TlsSession&& other) noexcept;
    TlsSession& operator=(TlsSession&&) = delete;
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;
    ~TlsSession();

    // Makes an inactive session a server session of context (which must outlive it). Returns false, and stays
    // inactive, when OpenSSL cannot create the session (out of memory).
    bool start(TlsContext& context) noexcept;
    bool isActive() const noexcept { return ssl_ != nullptr; }
    bool isHandshaking() const noexcept { return ssl_ != nullptr && !established_ && !failed_; }
    bool isEstablished() const noexcept { return established_; }
    TlsContext* context() const noexcept { return context_; }

    // Consumes all of ciphertext (a partial record is kept for the next call), writes the plaintext it holds to the
    // front of plaintext and the records it makes (handshake messages, tickets, alerts) to records; plainLength is
    // the plaintext's length. plaintext must hold ciphertext.size() plus one record (kMaxRecordBytes): the
    // plaintext of the bytes kept from the last call comes out too.
    ReadResult decrypt(std::string_view ciphertext, std::span<char> plaintext, std::size_t& plainLength,
                       ByteBuffer& records) noexcept;
    // Seals plaintext into records (one record per 16 KiB). Returns false when the session cannot send: its
    // handshake is not finished, it failed, or it sent close_notify.
    bool encrypt(std::string_view plaintext, ByteBuffer& records) noexcept;
    // Writes close_notify into records, once; returns whether it was written now.
    bool closeNotify(ByteBuffer& records) noexcept;

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
    TlsContext* context_ = nullptr;
    SSL* ssl_ = nullptr;
    void* serverNameData_ = nullptr;
    bool established_ = false;
    bool failed_ = false;
    bool closeNotifySent_ = false;
};

}  // namespace loopwire
