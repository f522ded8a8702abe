#include "Tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <netinet/in.h>

namespace loopwire::lwload {

namespace {

// ALPN offers HTTP/1.1 only, as curl does for http/1.1: a server that also speaks h2 must not pick it.
constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

bool isIpLiteral(const std::string& host) noexcept {
    in6_addr v6{};
    in_addr v4{};
    return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

// The reason of the error at the end of OpenSSL's queue, then an empty queue.
const char* takeOpenSslError(const char* fallback) noexcept {
    const unsigned long code = ERR_peek_last_error();
    const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
    ERR_clear_error();
    return reason != nullptr ? reason : fallback;
}

// OpenSSL calls this on the connection's thread for every session a handshake (TLS 1.2) or a NewSessionTicket
// message (TLS 1.3, after the handshake) gives the client. The connection keeps the latest, so that each session
// is offered once, as RFC 8446 (appendix C.4) asks of clients. Returning 1 keeps the reference OpenSSL passes.
int onNewSession(SSL* ssl, SSL_SESSION* session) {
    auto* owner = static_cast<TlsSession*>(SSL_get_app_data(ssl));
    if (owner == nullptr) return 0;
    owner->keepSession(session);
    return 1;
}

}  // namespace

TlsContext::TlsContext(const TlsSettings& settings) : settings_(settings) {
    if (!isIpLiteral(settings_.serverName)) sniName_ = settings_.serverName;
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == nullptr) {
        error_ = std::string("cannot create the TLS context: ") + takeOpenSslError("unknown error");
        return;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // Renegotiation refused, so that a write never has to wait for a read; a server that closes without
    // close_notify (many do) ends the stream rather than failing it.
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    // A partial write reports the bytes it wrote, as send() does, so that the workers keep one write loop for both.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Read whatever the socket holds into OpenSSL's buffer: one read() per response instead of two per record.
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_alpn_protos(ctx, kAlpnHttp11, sizeof kAlpnHttp11);

    if (settings_.caFile.empty()) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    } else {
        if (SSL_CTX_load_verify_locations(ctx, settings_.caFile.c_str(), nullptr) != 1) {
            error_ = "cannot load --cacert " + settings_.caFile + ": " + takeOpenSslError("unknown error");
            SSL_CTX_free(ctx);
            return;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        // The certificate must name the URL's host: a DNS name, or an IP address in its subjectAltName.
        X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
        const int named = sniName_.empty() ? X509_VERIFY_PARAM_set1_ip_asc(param, settings_.serverName.c_str())
                                           : X509_VERIFY_PARAM_set1_host(param, sniName_.c_str(), 0);
        if (named != 1) {
            error_ = "cannot check the certificate against " + settings_.serverName;
            SSL_CTX_free(ctx);
            return;
        }
    }

    if (settings_.resume) {
        // Sessions are kept per connection by onNewSession, never in OpenSSL's cache, which a client would only
        // use to look them up again by itself.
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, onNewSession);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    ctx_ = ctx;
}

TlsContext::~TlsContext() {
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

TlsSession::~TlsSession() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    forgetSession();
}

bool TlsSession::resumed() const noexcept { return ssl_ != nullptr && SSL_session_reused(ssl_) == 1; }

bool TlsSession::start(const TlsContext& context, int fd) noexcept {
    close();
    ssl_ = SSL_new(context.native());
    if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) {
        lastError_ = takeOpenSslError("cannot create a TLS connection");
        close();
        return false;
    }
    SSL_set_app_data(ssl_, this);
    if (context.sniName() != nullptr) SSL_set_tlsext_host_name(ssl_, context.sniName());
    if (context.settings().resume && session_ != nullptr && SSL_SESSION_is_resumable(session_) == 1) {
        // A copy is offered, not the kept session itself: an OpenSSL client marks a TLS 1.3 session it has used
        // not resumable (RFC 8446 asks clients to use a ticket once). Servers that send no new ticket after a
        // resumption (Node's) would then resume every other connection only, and the handshake rate would
        // measure their ticket policy rather than their resumed handshakes. So the connection offers its latest
        // ticket until the server replaces it; a server that refuses a ticket twice answers with a full handshake,
        // which `resumed` shows.
        SSL_SESSION* offered = SSL_SESSION_dup(session_);
        if (offered != nullptr) {
            SSL_set_session(ssl_, offered);
            SSL_SESSION_free(offered);  // the SSL object holds its own reference
        }
    }
    SSL_set_connect_state(ssl_);
    return true;
}

TlsStatus TlsSession::failure(int sslError) noexcept {
    switch (sslError) {
        case SSL_ERROR_WANT_READ:
            return TlsStatus::WantRead;
        case SSL_ERROR_WANT_WRITE:
            return TlsStatus::WantWrite;
        case SSL_ERROR_ZERO_RETURN:
            return TlsStatus::Closed;
        case SSL_ERROR_SYSCALL:
            // OpenSSL forbids SSL_shutdown() after SSL_ERROR_SYSCALL or SSL_ERROR_SSL.
            fatal_ = true;
            lastError_ = takeOpenSslError("the socket failed under TLS");
            return TlsStatus::Failed;
        default:
            fatal_ = true;
            lastError_ = takeOpenSslError("TLS error");
            return TlsStatus::TlsError;
    }
}

TlsStatus TlsSession::handshake() noexcept {
    const int rc = SSL_do_handshake(ssl_);
    if (rc == 1) {
        handshakeDone_ = true;
        return TlsStatus::Done;
    }
    const TlsStatus status = failure(SSL_get_error(ssl_, rc));
    if (status == TlsStatus::Closed) lastError_ = "the server closed the connection during the TLS handshake";
    return status;
}

TlsStatus TlsSession::read(char* buffer, std::size_t capacity, std::size_t& got) noexcept {
    if (SSL_read_ex(ssl_, buffer, capacity, &got) == 1) return TlsStatus::Done;
    const TlsStatus status = failure(SSL_get_error(ssl_, 0));
    // A read needs to write only to answer a TLS 1.3 KeyUpdate while the socket's send buffer is full. The next
    // readable event retries it, and the server must still answer the request in flight, so waiting for that
    // event cannot stall the connection: the workers need not watch for writability on a read's behalf.
    return status == TlsStatus::WantWrite ? TlsStatus::WantRead : status;
}

bool TlsSession::hasBuffered() const noexcept { return SSL_has_pending(ssl_) == 1; }

TlsStatus TlsSession::write(const void* data, std::size_t length, std::size_t& written) noexcept {
    if (SSL_write_ex(ssl_, data, length, &written) == 1) return TlsStatus::Done;
    const TlsStatus status = failure(SSL_get_error(ssl_, 0));
    // Only renegotiation makes a write wait for a read, and it is refused (SSL_OP_NO_RENEGOTIATION).
    return status == TlsStatus::WantRead ? TlsStatus::WantWrite : status;
}

void TlsSession::close() noexcept {
    if (ssl_ == nullptr) return;
    if (handshakeDone_ && !fatal_) {
        // Sends close_notify without waiting for the server's: the socket is closed next. A connection shut down
        // so keeps its session resumable; OpenSSL drops the session of one that ends without it.
        SSL_shutdown(ssl_);
        ERR_clear_error();
    }
    SSL_free(ssl_);
    ssl_ = nullptr;
    handshakeDone_ = false;
    fatal_ = false;
}

void TlsSession::forgetSession() noexcept {
    if (session_ != nullptr) SSL_SESSION_free(session_);
    session_ = nullptr;
}

void TlsSession::keepSession(SSL_SESSION* session) noexcept {
    forgetSession();
    session_ = session;
}

}  // namespace loopwire::lwload
