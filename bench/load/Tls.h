// Tls: lwload's client side of TLS (https://, wss://), on the system OpenSSL.
//
// TlsContext is one per run, shared by every worker thread (OpenSSL allows SSL_new() from several threads on one
// SSL_CTX): the protocol settings, certificate verification (off unless --cacert is given: benchmarks use
// self-signed certificates), and whether sessions are resumed. TlsSession is one per connection: the SSL object
// over the connection's non-blocking socket (SSL_set_fd: OpenSSL makes the read and write calls itself), and the
// session its last handshake left, offered again when the connection is reopened (--tls-resume on).
//
// Per-request cost. Reads go through OpenSSL's read-ahead buffer, so that a response costs one read() rather
// than one for the record header and one for its body; a request batch is one SSL_write(), which is one record
// and one write(). Once the handshake is done lwload allocates nothing here, and OpenSSL keeps each connection's
// buffers until it is closed; OpenSSL 3.0 does allocate four small blocks per record it writes (its packet
// builder), which lwload cannot avoid and lwload_alloc_tests holds it to.
//
// Contract
// - A TlsSession neither copies nor moves: OpenSSL's new-session callback finds it by address (the workers build
//   their connections once, in place). It is used by the thread that owns its connection only. start() after the TCP
//   connect completed, handshake() until it is Done, then read() and write(); close() before the socket is closed.
// - Failures come back as values. The reason of the last one is kept as a static string (OpenSSL's own), for the
//   diagnostic lwload prints; OpenSSL's error queue is emptied after every failure, so that it cannot be mistaken
//   for the cause of a later one.
// - OpenSSL writes with write(), not send(MSG_NOSIGNAL): a process using TlsSession must ignore SIGPIPE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

// OpenSSL's types, declared here so that the workers' headers do not pull in <openssl/ssl.h>.
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct ssl_session_st SSL_SESSION;

namespace loopwire::lwload {

struct TlsSettings {
    std::string serverName;  // the URL's host: sent as SNI unless it is an IP literal, and checked with --cacert
    std::string caFile;      // --cacert: verify the server's certificate and name against it; empty: no check
    bool resume = true;      // --tls-resume: offer the session of a connection's last handshake when reopening it
};

class TlsContext {
public:
    // Builds the SSL_CTX. On failure (a --cacert file that does not load) valid() is false and error() says why.
    explicit TlsContext(const TlsSettings& settings);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    bool valid() const noexcept { return ctx_ != nullptr; }
    const std::string& error() const noexcept { return error_; }
    const TlsSettings& settings() const noexcept { return settings_; }
    SSL_CTX* native() const noexcept { return ctx_; }
    // The host name to send as SNI, or nullptr when the URL's host is an IP literal (RFC 6066 forbids those).
    const char* sniName() const noexcept { return sniName_.empty() ? nullptr : sniName_.c_str(); }

private:
    TlsSettings settings_;
    std::string sniName_;
    std::string error_;
    SSL_CTX* ctx_ = nullptr;
};

// What a TLS read, write or handshake step ended with.
enum class TlsStatus : std::uint8_t {
    Done,       // handshake: complete; read: bytes were read; write: bytes were written
    WantRead,   // try again when the socket is readable
    WantWrite,  // try again when the socket is writable
    Closed,     // read: the server ended the connection (close_notify, or the end of the TCP stream)
    Failed,     // the socket broke (ECONNRESET, EPIPE...)
    TlsError,   // TLS itself failed: an alert, a certificate refused, bytes that are not TLS, a bad record
};

class TlsSession {
public:
    TlsSession() noexcept = default;
    ~TlsSession();
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;

    // Whether the connection speaks TLS (an SSL object exists): between start() and close().
    bool active() const noexcept { return ssl_ != nullptr; }
    bool handshakeDone() const noexcept { return handshakeDone_; }
    // Whether the last handshake resumed a session (SSL_session_reused).
    bool resumed() const noexcept;

    // Creates the SSL object over fd, as a client, offering the kept session when resumption is on. False when
    // OpenSSL cannot (out of memory); the reason is then in lastError().
    bool start(const TlsContext& context, int fd) noexcept;
    // One step of the handshake: Done, WantRead, WantWrite, Closed (the server hung up), Failed or TlsError.
    TlsStatus handshake() noexcept;
    // Reads decrypted bytes into buffer: Done with `got` set, WantRead (nothing more now), Closed, Failed or
    // TlsError. WantWrite is returned as WantRead: see the .cpp.
    TlsStatus read(char* buffer, std::size_t capacity, std::size_t& got) noexcept;
    // Whether OpenSSL holds bytes it read from the socket and has not returned yet: read again before waiting.
    bool hasBuffered() const noexcept;
    // Writes data: Done with `written` set (at least one byte), WantWrite (or WantRead), Failed or TlsError. After a
    // WantWrite the next write must carry the same bytes again: OpenSSL has already sealed them in a record.
    TlsStatus write(const void* data, std::size_t length, std::size_t& written) noexcept;
    // Ends the TLS connection before the socket is closed: after a completed handshake and no fatal error, sends
    // close_notify (best effort, never waiting for the server's), which also keeps the session resumable: OpenSSL
    // refuses to resume the session of a connection that ended without one. Frees the SSL object; the kept
    // session stays.
    void close() noexcept;
    // Drops the kept session (SSL_SESSION_free).
    void forgetSession() noexcept;

    // The reason of the last failure: a static string owned by OpenSSL, or a fixed one of ours; never null.
    const char* lastError() const noexcept { return lastError_; }

    // For the new-session callback of TlsContext: replaces the kept session with `session`, taking its reference.
    void keepSession(SSL_SESSION* session) noexcept;

private:
    TlsStatus failure(int sslError) noexcept;

    SSL* ssl_ = nullptr;
    SSL_SESSION* session_ = nullptr;  // the latest session a handshake on this connection left, for resumption
    const char* lastError_ = "";
    bool handshakeDone_ = false;
    bool fatal_ = false;  // SSL_ERROR_SYSCALL or SSL_ERROR_SSL: OpenSSL forbids SSL_shutdown() after them
};

}  // namespace loopwire::lwload
