#include "TlsContext.h"

#include "TlsServerSettings.h"
#include "TlsSession.h"
#include "base/Check.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace loopwire {

namespace {

struct BioDeleter {
    void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
using BioPointer = std::unique_ptr<BIO, BioDeleter>;

struct ContextDeleter {
    void operator()(SSL_CTX* context) const noexcept { SSL_CTX_free(context); }
};
using ContextPointer = std::unique_ptr<SSL_CTX, ContextDeleter>;

constexpr std::string_view kHttp11Protocol = "http/1.1";
constexpr std::string_view kHttp2Protocol = "h2";

long bioControl(BIO* /*bio*/, int command, long /*number*/, void* /*pointer*/) {
    // OpenSSL flushes after each flight; the socket sends after each call anyway.
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

// The BIO between OpenSSL and the sessions of a context: reads take the ciphertext of the call in progress, writes
// append to its record buffer (TlsContext::Call). Neither touches a descriptor, so OpenSSL never blocks and never
// makes a system call; the socket does all of them, one per batch. It holds nothing of a connection, so every
// session shares the context's one BIO instead of allocating its own: OpenSSL 3.5's BIO is 176 bytes of heap per
// connection (the BIO and its ex-data), held as long as the connection. Its retry flag, the one state a BIO keeps,
// is set and read within one SSL_* call of one session.
int bioRead(BIO* bio, char* into, int capacity) {
    TlsContext::Call* call = static_cast<TlsContext*>(BIO_get_data(bio))->currentCall();
    BIO_clear_retry_flags(bio);
    std::size_t taken = call != nullptr ? call->takeInput(into, static_cast<std::size_t>(capacity)) : 0;
    if (taken == 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    return static_cast<int>(taken);
}

int bioWrite(BIO* bio, const char* bytes, int length) {
    TlsContext::Call* call = static_cast<TlsContext*>(BIO_get_data(bio))->currentCall();
    BIO_clear_retry_flags(bio);
    // OpenSSL writes only from inside a session's call; a write outside one has nowhere to go and fails.
    if (call == nullptr) return -1;
    call->addRecords({bytes, static_cast<std::size_t>(length)});
    return length;
}

BIO_METHOD* contextBioMethod() {
    // A function-local static is initialized once, thread-safely, by the C++ runtime itself (std::call_once would
    // tie the Node addon to glibc 2.34, where pthread_once moved into libc).
    static BIO_METHOD* const method = [] {
        BIO_METHOD* created = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "loopwire sockets");
        BIO_meth_set_read(created, bioRead);
        BIO_meth_set_write(created, bioWrite);
        BIO_meth_set_ctrl(created, bioControl);
        return created;
    }();
    return method;
}

// The newest error OpenSSL queued, as text, and an empty queue afterwards (the queue is per thread, and a stale
// entry would be blamed on the next unrelated failure).
std::string takeOpenSslError() {
    unsigned long code = ERR_peek_last_error();
    std::string text;
    if (code != 0) {
        const char* reason = ERR_reason_error_string(code);
        text = reason != nullptr ? reason : "unknown OpenSSL error";
    }
    ERR_clear_error();
    return text;
}

// Host names compare without regard to ASCII case; patterns are stored lower case.
char asciiLower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsLowered(std::string_view lowered, std::string_view text) noexcept {
    if (lowered.size() != text.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (asciiLower(text[i]) != lowered[i]) return false;
    }
    return true;
}

std::string lowerCase(std::string_view text) {
    std::string lowered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), asciiLower);
    return lowered;
}

// One PEM source: bytes in memory (the option `memoryName`), else a file (the option `fileName`). Empty when
// neither was given.
class PemSource {
public:
    PemSource(std::string_view inMemory, const char* memoryName, std::string_view fileName, const char* fileOption)
        : inMemory_(inMemory), memoryName_(memoryName), file_(fileName), fileOption_(fileOption) {}

    bool given() const noexcept { return !inMemory_.empty() || !file_.empty(); }
    const char* option() const noexcept { return inMemory_.empty() ? fileOption_ : memoryName_; }
    // Where the bytes come from, for messages: "key_file_name ('/etc/key.pem')" or "key".
    std::string describe() const {
        return inMemory_.empty() ? std::string(fileOption_) + " ('" + std::string(file_) + "')" : memoryName_;
    }

    BioPointer open(std::string& error) const {
        if (!inMemory_.empty()) {
            if (inMemory_.size() > static_cast<std::size_t>(INT_MAX)) {
                error = std::string(memoryName_) + ": too large";
                return nullptr;
            }
            return BioPointer(BIO_new_mem_buf(inMemory_.data(), static_cast<int>(inMemory_.size())));
        }
        std::string path(file_);
        errno = 0;
        BioPointer bio(BIO_new_file(path.c_str(), "r"));
        if (!bio) {
            int cause = errno;
            ERR_clear_error();
            error = std::string(fileOption_) + ": cannot read '" + path + "'" +
                    (cause != 0 ? std::string(": ") + std::strerror(cause) : std::string());
        }
        return bio;
    }

private:
    std::string_view inMemory_;
    const char* memoryName_;
    std::string_view file_;
    const char* fileOption_;
};

// OpenSSL asks for the passphrase only when the key is encrypted, which tells a wrong passphrase from a file
// that holds no key.
struct PassphraseRequest {
    std::string_view passphrase;
    bool asked = false;
};

int supplyPassphrase(char* buffer, int size, int /*writing*/, void* request) {
    auto* asked = static_cast<PassphraseRequest*>(request);
    asked->asked = true;
    std::string_view text = asked->passphrase;
    if (text.empty() || text.size() > static_cast<std::size_t>(size)) return 0;
    std::memcpy(buffer, text.data(), text.size());
    return static_cast<int>(text.size());
}

bool useCertificateChain(SSL_CTX* context, const PemSource& source, std::string& error) {
    BioPointer bio = source.open(error);
    if (!bio) return false;
    X509* leaf = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (leaf == nullptr) {
        error = source.describe() + ": no PEM certificate found (" + takeOpenSslError() + ")";
        return false;
    }
    bool used = SSL_CTX_use_certificate(context, leaf) == 1;
    X509_free(leaf);
    if (!used) {
        error = source.describe() + ": certificate refused (" + takeOpenSslError() + ")";
        return false;
    }
    SSL_CTX_clear_chain_certs(context);
    while (X509* intermediate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
        if (SSL_CTX_add0_chain_cert(context, intermediate) != 1) {
            X509_free(intermediate);
            error = source.describe() + ": chain certificate refused (" + takeOpenSslError() + ")";
            return false;
        }
    }
    // The loop above ends at the end of the PEM data, which OpenSSL reports as an error to be ignored.
    ERR_clear_error();
    return true;
}

bool usePrivateKey(SSL_CTX* context, const PemSource& source, std::string_view passphrase, std::string& error) {
    BioPointer bio = source.open(error);
    if (!bio) return false;
    PassphraseRequest request{passphrase};
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, supplyPassphrase, &request);
    if (key == nullptr) {
        std::string reason = takeOpenSslError();
        if (request.asked && passphrase.empty()) {
            error = "passphrase: the key in " + source.describe() + " is encrypted and no passphrase was given";
        } else if (request.asked) {
            error = "passphrase: it does not decrypt the key in " + source.describe() + " (" + reason + ")";
        } else {
            error = source.describe() + ": no PEM private key found (" + reason + ")";
        }
        return false;
    }
    // The certificate is loaded first, so OpenSSL checks here that the key is its key.
    bool used = SSL_CTX_use_PrivateKey(context, key) == 1;
    EVP_PKEY_free(key);
    if (!used) {
        error = source.describe() + ": the key does not match the certificate (" + takeOpenSslError() + ")";
        return false;
    }
    return true;
}

bool useClientAuthorities(SSL_CTX* context, const PemSource& source, std::string& error) {
    BioPointer bio = source.open(error);
    if (!bio) return false;
    X509_STORE* store = SSL_CTX_get_cert_store(context);
    int count = 0;
    while (X509* authority = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
        bool added = X509_STORE_add_cert(store, authority) == 1 && SSL_CTX_add_client_CA(context, authority) == 1;
        X509_free(authority);
        if (!added) {
            error = source.describe() + ": CA certificate refused (" + takeOpenSslError() + ")";
            return false;
        }
        ++count;
    }
    ERR_clear_error();
    if (count == 0) {
        error = source.describe() + ": no PEM certificate found";
        return false;
    }
    // A client may send no certificate; one it sends must verify.
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    return true;
}

bool useDhParameters(SSL_CTX* context, const PemSource& source, std::string& error) {
    BioPointer bio = source.open(error);
    if (!bio) return false;
    EVP_PKEY* parameters = PEM_read_bio_Parameters(bio.get(), nullptr);
    if (parameters == nullptr) {
        error = source.describe() + ": no PEM DH parameters found (" + takeOpenSslError() + ")";
        return false;
    }
    if (SSL_CTX_set0_tmp_dh_pkey(context, parameters) != 1) {
        EVP_PKEY_free(parameters);
        error = source.describe() + ": DH parameters refused (" + takeOpenSslError() + ")";
        return false;
    }
    return true;
}

// Finds wanted in the client's list (protocol names, each after a one-byte length) and selects it.
bool selectOffered(std::string_view wanted, const unsigned char** selected, unsigned char* selectedLength,
                   const unsigned char* offered, unsigned int offeredLength) noexcept {
    for (unsigned int at = 0; at < offeredLength;) {
        unsigned int length = offered[at];
        if (at + 1 + length > offeredLength) break;
        std::string_view name(reinterpret_cast<const char*>(offered + at + 1), length);
        if (name == wanted) {
            *selected = offered + at + 1;
            *selectedLength = static_cast<unsigned char>(length);
            return true;
        }
        at += 1 + length;
    }
    return false;
}

// A context with the material and settings of options, or null with error set.
ContextPointer buildContext(const SocketContextOptions& options, std::string& error) {
    ContextPointer context(SSL_CTX_new(TLS_server_method()));
    if (!context) {
        error = "cannot create a TLS context (" + takeOpenSslError() + ")";
        return nullptr;
    }
    SSL_CTX* ssl = context.get();
    tls::applyServerSettings(ssl, options.ssl_prefer_low_memory_usage);
    SSL_CTX_set_alpn_select_cb(ssl, TlsContext::selectProtocol, nullptr);

    PemSource certificate(options.cert, "cert", options.cert_file_name, "cert_file_name");
    PemSource key(options.key, "key", options.key_file_name, "key_file_name");
    if (!certificate.given()) {
        error = "cert_file_name: no certificate given (cert_file_name, or cert in memory)";
        return nullptr;
    }
    if (!key.given()) {
        error = "key_file_name: no private key given (key_file_name, or key in memory)";
        return nullptr;
    }
    if (!useCertificateChain(ssl, certificate, error)) return nullptr;
    if (!usePrivateKey(ssl, key, options.passphrase, error)) return nullptr;
    if (SSL_CTX_check_private_key(ssl) != 1) {
        error = key.describe() + ": the key does not match the certificate in " + certificate.describe();
        ERR_clear_error();
        return nullptr;
    }
    PemSource authorities(options.ca, "ca", options.ca_file_name, "ca_file_name");
    if (authorities.given() && !useClientAuthorities(ssl, authorities, error)) return nullptr;
    PemSource dhParameters({}, "", options.dh_params_file_name, "dh_params_file_name");
    if (dhParameters.given() && !useDhParameters(ssl, dhParameters, error)) return nullptr;
    if (!options.ssl_groups.empty()) {
        std::string groups(options.ssl_groups);
        if (SSL_CTX_set1_groups_list(ssl, groups.c_str()) != 1) {
            error =
                "ssl_groups: OpenSSL (" + std::string(OpenSSL_version(OPENSSL_VERSION)) + ") refuses '" + groups + "'";
            ERR_clear_error();
            return nullptr;
        }
    }
    if (!options.ssl_ciphers.empty()) {
        std::string ciphers(options.ssl_ciphers);
        if (SSL_CTX_set_cipher_list(ssl, ciphers.c_str()) != 1) {
            error = "ssl_ciphers: no cipher matches '" + ciphers + "'";
            ERR_clear_error();
            return nullptr;
        }
    }
    return context;
}

}  // namespace

std::unique_ptr<TlsContext> TlsContext::create(const SocketContextOptions& options, std::uint32_t handshakeTimeoutMs,
                                               std::string& error) {
    ContextPointer context = buildContext(options, error);
    if (!context) return nullptr;
    BIO_METHOD* method = contextBioMethod();
    BioPointer bio(method != nullptr ? BIO_new(method) : nullptr);
    if (!bio) {
        error = "cannot create a TLS context's BIO (" + takeOpenSslError() + ")";
        return nullptr;
    }
    std::unique_ptr<TlsContext> created(new TlsContext(context.release(), bio.release(), handshakeTimeoutMs));
    BIO_set_data(created->bio_, created.get());
    BIO_set_init(created->bio_, 1);
    SSL_CTX_set_tlsext_servername_callback(created->context_, selectServerName);
    SSL_CTX_set_tlsext_servername_arg(created->context_, created.get());
    return created;
}

// The server's choice, whatever the client's order (RFC 7301 leaves it to the server): "h2" where the server speaks
// HTTP/2 and the client offers it, else "http/1.1" when offered, else none. Every context of the server (those of
// its server names too) selects here; the session's BIO leads to the server's TlsContext.
int TlsContext::selectProtocol(SSL* ssl, const unsigned char** selected, unsigned char* selectedLength,
                               const unsigned char* offered, unsigned int offeredLength, void* /*unused*/) {
    BIO* bio = SSL_get_rbio(ssl);
    const auto* self = bio != nullptr ? static_cast<const TlsContext*>(BIO_get_data(bio)) : nullptr;
    if (self != nullptr && self->offersHttp2_ &&
        selectOffered(kHttp2Protocol, selected, selectedLength, offered, offeredLength)) {
        return SSL_TLSEXT_ERR_OK;
    }
    if (selectOffered(kHttp11Protocol, selected, selectedLength, offered, offeredLength)) return SSL_TLSEXT_ERR_OK;
    return SSL_TLSEXT_ERR_NOACK;
}

TlsContext::TlsContext(SSL_CTX* context, BIO* bio, std::uint32_t handshakeTimeoutMs) noexcept
    : context_(context), bio_(bio), handshakeTimeoutMs_(handshakeTimeoutMs) {}

TlsContext::~TlsContext() {
    for (ServerName& name : serverNames_)
        SSL_CTX_free(name.context);
    SSL_CTX_free(context_);
    // The sessions, which hold references of their own, have ended before their context.
    BIO_free(bio_);
}

bool TlsContext::addServerName(std::string_view pattern, const SocketContextOptions& options, std::string& error) {
    if (pattern.empty()) {
        error = "hostname: empty";
        return false;
    }
    ContextPointer context = buildContext(options, error);
    if (!context) return false;
    if (auto name = named(pattern); name != serverNames_.end()) {
        // Sessions that picked the old context hold a reference of their own to it.
        SSL_CTX_free(name->context);
        name->context = context.release();
        return true;
    }
    serverNames_.push_back({lowerCase(pattern), context.release()});
    return true;
}

std::vector<TlsContext::ServerName>::iterator TlsContext::named(std::string_view pattern) noexcept {
    return std::find_if(serverNames_.begin(), serverNames_.end(),
                        [pattern](const ServerName& name) { return equalsLowered(name.pattern, pattern); });
}

bool TlsContext::setServerNameData(std::string_view pattern, void* data) noexcept {
    auto name = named(pattern);
    if (name == serverNames_.end()) return false;
    name->data = data;
    return true;
}

bool TlsContext::removeServerName(std::string_view pattern) {
    auto name = named(pattern);
    if (name == serverNames_.end()) return false;
    SSL_CTX_free(name->context);
    serverNames_.erase(name);
    return true;
}

const TlsContext::ServerName* TlsContext::find(std::string_view hostname) const noexcept {
    if (hostname.empty() || serverNames_.empty()) return nullptr;
    for (const ServerName& name : serverNames_) {
        if (equalsLowered(name.pattern, hostname)) return &name;
    }
    std::size_t firstDot = hostname.find('.');
    if (firstDot == 0 || firstDot == std::string_view::npos) return nullptr;
    std::string_view parent = hostname.substr(firstDot);  // ".example.com"
    for (const ServerName& name : serverNames_) {
        std::string_view pattern = name.pattern;
        if (pattern.size() > 2 && pattern.substr(0, 2) == "*." && equalsLowered(pattern.substr(1), parent))
            return &name;
    }
    return nullptr;
}

std::string_view TlsContext::findServerName(std::string_view hostname) const noexcept {
    const ServerName* name = find(hostname);
    return name != nullptr ? std::string_view(name->pattern) : std::string_view();
}

int TlsContext::selectServerName(SSL* ssl, int* /*alert*/, void* self) {
    auto* tls = static_cast<TlsContext*>(self);
    const char* requested = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    if (requested == nullptr) return SSL_TLSEXT_ERR_OK;
    std::string_view hostname(requested);
    const ServerName* name = tls->find(hostname);
    if (name == nullptr && tls->onMissingServerName_) {
        tls->onMissingServerName_(hostname);
        name = tls->find(hostname);
    }
    if (name != nullptr) {
        SSL_set_SSL_CTX(ssl, name->context);
        if (tls->call_ != nullptr) tls->call_->session().setServerNameData(name->data);
    }
    // A name nobody serves is answered with the default certificate; the client decides whether it will do.
    return SSL_TLSEXT_ERR_OK;
}

std::size_t TlsContext::Call::takeInput(char* into, std::size_t capacity) noexcept {
    std::size_t taken = std::min(capacity, input_.size());
    if (taken > 0) {
        std::memcpy(into, input_.data(), taken);
        input_.remove_prefix(taken);
    }
    return taken;
}

}  // namespace loopwire
