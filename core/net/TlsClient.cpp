#include "TlsClient.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <climits>
#include <fstream>

namespace loopwire {

namespace {

// Where Debian and its kin keep the system's CA bundle. Node's OpenSSL looks for its default paths under the
// folder it was built with, which is not the system's, so this file is loaded too when it exists.
constexpr const char* kSystemCaBundle = "/etc/ssl/certs/ca-certificates.crt";

bool isIpAddress(const std::string& text) {
    unsigned char address[16];
    return inet_pton(AF_INET, text.c_str(), address) == 1 || inet_pton(AF_INET6, text.c_str(), address) == 1;
}

std::string lastOpenSslError(const char* what) {
    char text[256] = {};
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return what;
    ERR_error_string_n(code, text, sizeof text);
    return std::string(what) + ": " + text;
}

}  // namespace

std::unique_ptr<TlsClient> TlsClient::create(const Options& options, std::string& error) {
    std::unique_ptr<TlsClient> client(new TlsClient);
    client->context_ = SSL_CTX_new(TLS_client_method());
    if (client->context_ == nullptr) {
        error = lastOpenSslError("cannot create a TLS context");
        return nullptr;
    }
    SSL_CTX_set_min_proto_version(client->context_, TLS1_2_VERSION);
    if (options.verify) {
        SSL_CTX_set_verify(client->context_, SSL_VERIFY_PEER, nullptr);
        if (!options.caFile.empty()) {
            if (SSL_CTX_load_verify_locations(client->context_, options.caFile.c_str(), nullptr) != 1) {
                error = lastOpenSslError(("cannot load the CA file " + options.caFile).c_str());
                return nullptr;
            }
        } else {
            SSL_CTX_set_default_verify_paths(client->context_);
            if (std::ifstream(kSystemCaBundle).good()) {
                SSL_CTX_load_verify_locations(client->context_, kSystemCaBundle, nullptr);
            }
            ERR_clear_error();
        }
    } else {
        SSL_CTX_set_verify(client->context_, SSL_VERIFY_NONE, nullptr);
    }
    client->ssl_ = SSL_new(client->context_);
    BIO* input = BIO_new(BIO_s_mem());
    BIO* output = BIO_new(BIO_s_mem());
    if (client->ssl_ == nullptr || input == nullptr || output == nullptr) {
        BIO_free(input);
        BIO_free(output);
        error = lastOpenSslError("cannot create a TLS session");
        return nullptr;
    }
    SSL_set_bio(client->ssl_, input, output);
    SSL_set_connect_state(client->ssl_);
    if (!options.serverName.empty()) {
        if (isIpAddress(options.serverName)) {
            if (options.verify) {
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(client->ssl_), options.serverName.c_str());
            }
        } else {
            SSL_set_tlsext_host_name(client->ssl_, options.serverName.c_str());
            if (options.verify) SSL_set1_host(client->ssl_, options.serverName.c_str());
        }
    }
    return client;
}

TlsClient::~TlsClient() {
    SSL_free(ssl_);  // frees the BIOs too
    SSL_CTX_free(context_);
}

void TlsClient::start() {
    const int done = SSL_do_handshake(ssl_);
    if (done != 1 && SSL_get_error(ssl_, done) != SSL_ERROR_WANT_READ) failWith("the TLS handshake failed");
    drainOutput();
}

void TlsClient::failWith(const char* what) {
    status_ = Status::Failed;
    const long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) {
        error_ = std::string(what) + ": " + X509_verify_cert_error_string(verify);
        ERR_clear_error();
    } else {
        error_ = lastOpenSslError(what);
    }
}

TlsClient::Status TlsClient::receive(std::string_view cipher, ByteBuffer& plain) {
    if (status_ == Status::Failed || status_ == Status::Closed) return status_;
    BIO* input = SSL_get_rbio(ssl_);
    while (!cipher.empty()) {
        const int chunk = cipher.size() > INT_MAX ? INT_MAX : static_cast<int>(cipher.size());
        const int written = BIO_write(input, cipher.data(), chunk);
        if (written <= 0) {
            failWith("cannot buffer TLS input");
            return status_;
        }
        cipher.remove_prefix(static_cast<std::size_t>(written));
    }
    if (status_ == Status::Handshaking) {
        const int done = SSL_do_handshake(ssl_);
        if (done == 1) {
            status_ = Status::Established;
        } else if (SSL_get_error(ssl_, done) != SSL_ERROR_WANT_READ) {
            failWith("the TLS handshake failed");
            drainOutput();
            return status_;
        }
    }
    while (status_ == Status::Established) {
        constexpr std::size_t kChunk = 16 * 1024;
        char* at = plain.prepare(kChunk);
        const int read = SSL_read(ssl_, at, static_cast<int>(kChunk));
        if (read > 0) {
            plain.commit(static_cast<std::size_t>(read));
            continue;
        }
        const int error = SSL_get_error(ssl_, read);
        if (error == SSL_ERROR_WANT_READ) break;
        if (error == SSL_ERROR_ZERO_RETURN) {
            status_ = Status::Closed;
            break;
        }
        failWith("a TLS record could not be read");
    }
    drainOutput();
    return status_;
}

bool TlsClient::send(std::string_view plain) {
    if (status_ != Status::Established) return false;
    while (!plain.empty()) {
        const int chunk = plain.size() > INT_MAX ? INT_MAX : static_cast<int>(plain.size());
        const int written = SSL_write(ssl_, plain.data(), chunk);
        if (written <= 0) {
            failWith("cannot encrypt");
            return false;
        }
        plain.remove_prefix(static_cast<std::size_t>(written));
    }
    drainOutput();
    return true;
}

void TlsClient::closeNotify() {
    if (status_ != Status::Established) return;
    SSL_shutdown(ssl_);
    ERR_clear_error();
    status_ = Status::Closed;
    drainOutput();
}

void TlsClient::drainOutput() {
    BIO* out = SSL_get_wbio(ssl_);
    for (;;) {
        const std::size_t pending = BIO_ctrl_pending(out);
        if (pending == 0) return;
        char* at = output_.prepare(pending);
        const int read = BIO_read(out, at, static_cast<int>(pending));
        if (read <= 0) return;
        output_.commit(static_cast<std::size_t>(read));
    }
}

}  // namespace loopwire
