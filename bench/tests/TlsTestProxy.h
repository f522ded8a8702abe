// TlsTestProxy: TLS in front of a scripted LoopbackServer, for the worker tests.
//
// It listens on 127.0.0.1, port 0, with an EC P-256 key and a self-signed certificate made at construction (for
// "localhost" and 127.0.0.1), completes each TLS handshake, connects to the plain server and relays bytes both
// ways, so that every scripted server of the plain tests serves https:// and wss:// unchanged. It counts the
// handshakes it completed and those that resumed a session, as the server saw them. Session tickets are
// OpenSSL's defaults (stateless, two after a full handshake, one after a resumption).
//
// One thread per connection with blocking I/O (LoopbackServer's, with its 2 s receive timeout), so no test can
// hang; the destructor joins them.
#pragma once

#include "LoopbackServer.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <poll.h>
#include <stdlib.h>

namespace loopwire::lwload::test {

class TlsTestProxy {
public:
    explicit TlsTestProxy(std::uint16_t backendPort)
        : backendPort_(backendPort),
          ctx_(makeServerContext(certificateFile_)),
          server_(std::make_unique<LoopbackServer>([this](int fd) { serve(fd); })) {}

    ~TlsTestProxy() {
        server_.reset();  // joins the connections' threads, which use the context
        SSL_CTX_free(ctx_);
        std::remove(certificateFile_.c_str());
    }

    TlsTestProxy(const TlsTestProxy&) = delete;
    TlsTestProxy& operator=(const TlsTestProxy&) = delete;

    std::uint16_t port() const noexcept { return server_->port(); }
    // The certificate, in PEM, for --cacert.
    const std::string& certificateFile() const noexcept { return certificateFile_; }
    int handshakes() const noexcept { return handshakes_.load(); }
    int resumed() const noexcept { return resumed_.load(); }

private:
    // Bytes relayed per read.
    static constexpr std::size_t kRelayChunkBytes = 16 * 1024;
    // How long the relay waits for either side before it gives up on a connection.
    static constexpr int kRelayIdleMs = 2000;

    static SSL_CTX* makeServerContext(std::string& certificateFile) {
        EVP_PKEY* key = EVP_EC_gen("P-256");
        X509* certificate = X509_new();
        SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
        if (key == nullptr || certificate == nullptr || ctx == nullptr) throw std::runtime_error("OpenSSL failed");
        X509_set_version(certificate, 2);
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
        X509_gmtime_adj(X509_getm_notBefore(certificate), -60);
        X509_gmtime_adj(X509_getm_notAfter(certificate), 24 * 3600);
        X509_set_pubkey(certificate, key);
        X509_NAME* name = X509_get_subject_name(certificate);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1,
                                   -1, 0);
        X509_set_issuer_name(certificate, name);
        X509V3_CTX extensionContext;
        X509V3_set_ctx_nodb(&extensionContext);
        X509V3_set_ctx(&extensionContext, certificate, certificate, nullptr, nullptr, 0);
        X509_EXTENSION* names =
            X509V3_EXT_conf_nid(nullptr, &extensionContext, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
        if (names == nullptr || X509_add_ext(certificate, names, -1) != 1 ||
            X509_sign(certificate, key, EVP_sha256()) == 0 || SSL_CTX_use_certificate(ctx, certificate) != 1 ||
            SSL_CTX_use_PrivateKey(ctx, key) != 1) {
            throw std::runtime_error("cannot make the test certificate");
        }
        X509_EXTENSION_free(names);

        char path[] = "/tmp/lwload-test-cert-XXXXXX";
        const int fd = mkstemp(path);
        if (fd < 0) throw std::runtime_error("mkstemp failed");
        FILE* file = fdopen(fd, "w");
        PEM_write_X509(file, certificate);
        std::fclose(file);
        certificateFile = path;
        X509_free(certificate);
        EVP_PKEY_free(key);
        return ctx;
    }

    void serve(int clientFd) {
        SSL* ssl = SSL_new(ctx_);
        SSL_set_fd(ssl, clientFd);
        if (SSL_accept(ssl) == 1) {
            ++handshakes_;
            if (SSL_session_reused(ssl) == 1) ++resumed_;
            relay(ssl, clientFd);
        }
        ERR_clear_error();
        SSL_free(ssl);
    }

    void relay(SSL* ssl, int clientFd) {
        const int backend = connectBackend();
        if (backend < 0) return;
        char buffer[kRelayChunkBytes];
        for (;;) {
            // Bytes OpenSSL already holds would not wake poll().
            if (SSL_pending(ssl) == 0) {
                pollfd fds[2] = {{clientFd, POLLIN, 0}, {backend, POLLIN, 0}};
                if (poll(fds, 2, kRelayIdleMs) <= 0) break;
                if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                    const ssize_t n = read(backend, buffer, sizeof buffer);
                    if (n <= 0 || SSL_write(ssl, buffer, static_cast<int>(n)) <= 0) break;
                }
                if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            }
            const int n = SSL_read(ssl, buffer, sizeof buffer);
            if (n <= 0 || !LoopbackServer::writeAll(backend, std::string_view(buffer, static_cast<std::size_t>(n)))) {
                break;
            }
        }
        close(backend);
    }

    int connectBackend() const {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(backendPort_);
        if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            if (fd >= 0) close(fd);
            return -1;
        }
        return fd;
    }

    std::uint16_t backendPort_;
    std::string certificateFile_;
    SSL_CTX* ctx_;
    std::atomic<int> handshakes_{0};
    std::atomic<int> resumed_{0};
    std::unique_ptr<LoopbackServer> server_;
};

}  // namespace loopwire::lwload::test
