#include "TlsSession.h"

#include "TlsContext.h"
#include "base/Check.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <climits>

namespace loopwire {

TlsSession::TlsSession(TlsSession&& other) noexcept
    : context_(other.context_),
      ssl_(other.ssl_),
      serverNameData_(other.serverNameData_),
      established_(other.established_),
      failed_(other.failed_),
      closeNotifySent_(other.closeNotifySent_) {
    // Not from inside one of its own calls into OpenSSL, which hold the object that moves.
    LW_CHECK(other.context_ == nullptr || other.context_->currentCall() == nullptr ||
             &other.context_->currentCall()->session() != &other);
    other.context_ = nullptr;
    other.ssl_ = nullptr;
    other.serverNameData_ = nullptr;
    other.established_ = other.failed_ = other.closeNotifySent_ = false;
}

TlsSession::~TlsSession() {
    if (ssl_ != nullptr) SSL_free(ssl_);
}

bool TlsSession::start(TlsContext& context) noexcept {
    LW_CHECK(ssl_ == nullptr);
    SSL* ssl = SSL_new(context.handle());
    if (ssl == nullptr) {
        ERR_clear_error();
        return false;
    }
    // Every session of the context reads and writes through the context's one BIO, which holds no state of a
    // connection (TlsContext.cpp says why); each SSL owns one reference to it, which SSL_free gives back.
    BIO* bio = context.bio();
    BIO_up_ref(bio);
    SSL_set_bio(ssl, bio, bio);
    SSL_set_accept_state(ssl);
    context_ = &context;
    ssl_ = ssl;
    return true;
}

TlsSession::ReadResult TlsSession::decrypt(std::string_view ciphertext, std::span<char> plaintext,
                                           std::size_t& plainLength, ByteBuffer& records) noexcept {
    LW_CHECK(ssl_ != nullptr);
    LW_CHECK(plaintext.size() >= ciphertext.size() + kMaxRecordBytes);
    plainLength = 0;
    if (failed_) return ReadResult::Failed;
    TlsContext::Call call(*context_, *this, ciphertext, records);
    auto fail = [this] {
        failed_ = true;
        ERR_clear_error();
        return ReadResult::Failed;
    };
    if (!established_) {
        int done = SSL_do_handshake(ssl_);
        if (done != 1) {
            int error = SSL_get_error(ssl_, done);
            if (error != SSL_ERROR_WANT_READ) return fail();
            // A handshake step reads all it is given: what a flight leaves unread is the start of the next.
            LW_CHECK(call.inputLeft() == 0);
            return ReadResult::Ok;
        }
        established_ = true;
    }
    // One record per SSL_read; go on until the input is used up (OpenSSL keeps a partial record for next time).
    while (plainLength < plaintext.size()) {
        std::size_t room = plaintext.size() - plainLength;
        int read = SSL_read(ssl_, plaintext.data() + plainLength, room > INT_MAX ? INT_MAX : static_cast<int>(room));
        if (read > 0) {
            plainLength += static_cast<std::size_t>(read);
            // All input used and no record bytes kept: a further SSL_read would only say WANT_READ.
            if (call.inputLeft() == 0 && SSL_has_pending(ssl_) == 0) break;
            continue;
        }
        int error = SSL_get_error(ssl_, read);
        if (error == SSL_ERROR_WANT_READ) break;
        if (error == SSL_ERROR_ZERO_RETURN) return ReadResult::PeerClosed;
        return fail();
    }
    // The plaintext of every record the input completed fits (the capacity checked above), so none is left behind.
    LW_CHECK(call.inputLeft() == 0);
    return ReadResult::Ok;
}

bool TlsSession::encrypt(std::string_view plaintext, ByteBuffer& records) noexcept {
    LW_CHECK(ssl_ != nullptr);
    if (!established_ || failed_ || closeNotifySent_) return false;
    if (plaintext.empty()) return true;
    TlsContext::Call call(*context_, *this, {}, records);
    while (!plaintext.empty()) {
        int chunk = plaintext.size() > INT_MAX ? INT_MAX : static_cast<int>(plaintext.size());
        int written = SSL_write(ssl_, plaintext.data(), chunk);
        if (written <= 0) {
            failed_ = true;
            ERR_clear_error();
            return false;
        }
        plaintext.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

bool TlsSession::closeNotify(ByteBuffer& records) noexcept {
    if (ssl_ == nullptr || !established_ || failed_ || closeNotifySent_) return false;
    TlsContext::Call call(*context_, *this, {}, records);
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
