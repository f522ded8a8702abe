#include "TlsSession.h"

#include "TlsContext.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <climits>

namespace loopwire {

TlsSession* TlsSession::create(TlsContext& context, std::uint64_t handshakeDeadlineMs) noexcept {
    SSL* ssl = SSL_new(context.handle());
    if (ssl == nullptr) {
        ERR_clear_error();
        return nullptr;
    }
    // Every session of the context reads and writes through the context's one BIO, which holds no state of a
    // connection (TlsContext.cpp says why); each SSL owns one reference to it, which SSL_free gives back.
    BIO* bio = context.bio();
    BIO_up_ref(bio);
    SSL_set_bio(ssl, bio, bio);
    SSL_set_accept_state(ssl);
    auto* session = new (std::nothrow) TlsSession(context, ssl, handshakeDeadlineMs);
    if (session == nullptr) {
        SSL_free(ssl);
        return nullptr;
    }
    return session;
}

TlsSession::TlsSession(TlsContext& context, SSL* ssl, std::uint64_t handshakeDeadlineMs) noexcept
    : context_(context), ssl_(ssl), handshakeDeadlineMs_(handshakeDeadlineMs) {}

TlsSession::~TlsSession() { SSL_free(ssl_); }

TlsSession::ReadResult TlsSession::decrypt(const char* cipher, std::size_t length, char* plain,
                                           std::size_t plainCapacity, std::size_t& plainLength) noexcept {
    plainLength = 0;
    if (failed_) return ReadResult::Failed;
    context_.setInput(cipher, length);
    auto fail = [this] {
        failed_ = true;
        ERR_clear_error();
        context_.setInput(nullptr, 0);
        return ReadResult::Failed;
    };
    if (!established_) {
        // The server-name callback, which runs inside the handshake, finds the session through the context.
        context_.setHandshakingSession(this);
        int done = SSL_do_handshake(ssl_);
        context_.setHandshakingSession(nullptr);
        if (done != 1) {
            int error = SSL_get_error(ssl_, done);
            if (error == SSL_ERROR_WANT_READ) return ReadResult::Ok;
            return fail();
        }
        established_ = true;
    }
    // One record per SSL_read; go on until the input is used up (OpenSSL keeps a partial record for next time).
    while (plainLength < plainCapacity) {
        std::size_t room = plainCapacity - plainLength;
        int read = SSL_read(ssl_, plain + plainLength, room > INT_MAX ? INT_MAX : static_cast<int>(room));
        if (read > 0) {
            plainLength += static_cast<std::size_t>(read);
            // All input used and no record bytes kept: a further SSL_read would only say WANT_READ.
            if (context_.inputLeft() == 0 && SSL_has_pending(ssl_) == 0) break;
            continue;
        }
        int error = SSL_get_error(ssl_, read);
        if (error == SSL_ERROR_WANT_READ) break;
        if (error == SSL_ERROR_ZERO_RETURN) {
            context_.setInput(nullptr, 0);
            return ReadResult::PeerClosed;
        }
        return fail();
    }
    context_.setInput(nullptr, 0);
    return ReadResult::Ok;
}

bool TlsSession::encrypt(std::string_view plain) noexcept {
    if (!established_ || failed_ || closeNotifySent_) return false;
    while (!plain.empty()) {
        int chunk = plain.size() > INT_MAX ? INT_MAX : static_cast<int>(plain.size());
        int written = SSL_write(ssl_, plain.data(), chunk);
        if (written <= 0) {
            failed_ = true;
            ERR_clear_error();
            return false;
        }
        plain.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

bool TlsSession::closeNotify() noexcept {
    if (!established_ || failed_ || closeNotifySent_) return false;
    closeNotifySent_ = true;
    SSL_shutdown(ssl_);
    ERR_clear_error();
    return true;
}

std::string_view TlsSession::serverName() const noexcept {
    const char* name = SSL_get_servername(ssl_, TLSEXT_NAMETYPE_host_name);
    return name != nullptr ? std::string_view(name) : std::string_view();
}

std::string TlsSession::peerCertificatePem() const {
    X509* certificate = SSL_get1_peer_certificate(ssl_);
    if (certificate == nullptr) return {};
    std::string pem;
    BIO* memory = BIO_new(BIO_s_mem());
    if (memory != nullptr && PEM_write_bio_X509(memory, certificate) == 1) {
        char* bytes = nullptr;
        long length = BIO_get_mem_data(memory, &bytes);
        if (length > 0) pem.assign(bytes, static_cast<std::size_t>(length));
    }
    BIO_free(memory);
    X509_free(certificate);
    ERR_clear_error();
    return pem;
}

std::string_view TlsSession::alpnProtocol() const noexcept {
    const unsigned char* protocol = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl_, &protocol, &length);
    return protocol != nullptr ? std::string_view(reinterpret_cast<const char*>(protocol), length) : std::string_view();
}

}  // namespace loopwire
