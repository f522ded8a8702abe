#include "MemoryTlsPair.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <stdexcept>

namespace loopwire::test {

namespace {

std::string pemOf(int (*write)(BIO*, void*), void* object) {
    BIO* memory = BIO_new(BIO_s_mem());
    if (memory == nullptr || write(memory, object) != 1) throw std::runtime_error("cannot write PEM");
    char* bytes = nullptr;
    long length = BIO_get_mem_data(memory, &bytes);
    std::string pem(bytes, static_cast<std::size_t>(length));
    BIO_free(memory);
    return pem;
}

SelfSignedCertificate makeCertificate() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    if (key == nullptr || cert == nullptr) throw std::runtime_error("cannot make a test key");
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 2 * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                               0);
    X509_set_issuer_name(cert, name);
    if (X509_sign(cert, key, EVP_sha256()) == 0) throw std::runtime_error("cannot sign the test certificate");
    SelfSignedCertificate made;
    made.keyPem = pemOf(
        [](BIO* bio, void* object) {
            return PEM_write_bio_PrivateKey(bio, static_cast<EVP_PKEY*>(object), nullptr, nullptr, 0, nullptr, nullptr);
        },
        key);
    made.certPem =
        pemOf([](BIO* bio, void* object) { return PEM_write_bio_X509(bio, static_cast<X509*>(object)); }, cert);
    X509_free(cert);
    EVP_PKEY_free(key);
    return made;
}

}  // namespace

const SelfSignedCertificate& SelfSignedCertificate::get() {
    static const SelfSignedCertificate made = makeCertificate();
    return made;
}

std::unique_ptr<TlsContext> makeServerContext(SocketContextOptions options) {
    const SelfSignedCertificate& material = SelfSignedCertificate::get();
    options.key = material.keyPem;
    options.cert = material.certPem;
    std::string error;
    std::unique_ptr<TlsContext> context = TlsContext::create(options, 10000, error);
    EXPECT_NE(context, nullptr) << error;
    return context;
}

std::size_t countRecords(std::string_view bytes, int contentType) {
    std::size_t records = 0;
    while (bytes.size() >= 5) {
        const auto type = static_cast<unsigned char>(bytes[0]);
        const std::size_t length = (static_cast<std::size_t>(static_cast<unsigned char>(bytes[3])) << 8) |
                                   static_cast<unsigned char>(bytes[4]);
        if (bytes.size() < 5 + length) break;
        if (contentType < 0 || type == contentType) ++records;
        bytes.remove_prefix(5 + length);
    }
    return records;
}

MemoryTlsPair::MemoryTlsPair(TlsContext& context, std::string serverName) : context_(context) {
    EXPECT_TRUE(own_.start(context));
    TlsClient::Options options;
    options.serverName = std::move(serverName);
    options.verify = false;
    std::string error;
    client_ = TlsClient::create(options, error);
    if (client_ == nullptr) throw std::runtime_error("TlsClient: " + error);
    client_->start();
}

bool MemoryTlsPair::applyFault(Side side, std::string& bytes) {
    const std::size_t count = side == Side::Read ? ++reads_ : ++writes_;
    if (faultAt_ == 0 || side != faultSide_ || count != faultAt_) return true;
    faultHappened_ = true;
    if (fault_ == Fault::Cut) {
        cut_ = true;
        return false;
    }
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x20);
    return true;
}

void MemoryTlsPair::deliverToServer(std::string_view bytes) {
    std::string delivered(bytes);
    if (!applyFault(Side::Read, delivered)) return;
    plaintext_.resize(delivered.size() + TlsSession::kMaxRecordBytes);
    std::size_t plainLength = 0;
    lastServerResult_ = server_->decrypt(delivered, plaintext_, plainLength, records_);
    // The pair's own check of what the session guarantees: the call is over, and nothing else holds its bytes.
    EXPECT_EQ(context_.currentCall(), nullptr);
    serverReceived_.append(plaintext_.data(), plainLength);
    toClient_.append(records_.view());
    records_.clear();
}

void MemoryTlsPair::deliverToClient(std::string_view bytes) {
    std::string delivered(bytes);
    if (!applyFault(Side::Write, delivered)) return;
    client_->receive(delivered, clientReceived_);
}

void MemoryTlsPair::pump(std::size_t chunk) {
    chunk = std::max<std::size_t>(chunk, 1);
    for (;;) {
        if (cut_ || serverFailed() || client_->status() == TlsClient::Status::Failed) return;
        ByteBuffer& fromClient = client_->output();
        if (!fromClient.empty()) {
            const std::size_t size = std::min(chunk, fromClient.size());
            std::string bytes(fromClient.data(), size);
            fromClient.consume(size);
            deliverToServer(bytes);
            continue;
        }
        if (!toClient_.empty()) {
            const std::size_t size = std::min(chunk, toClient_.size());
            std::string bytes = toClient_.substr(0, size);
            toClient_.erase(0, size);
            deliverToClient(bytes);
            continue;
        }
        return;
    }
}

bool MemoryTlsPair::handshake(std::size_t chunk) {
    pump(chunk);
    return server_->isEstablished() && client_->established();
}

void MemoryTlsPair::clientSends(std::string_view plaintext) {
    EXPECT_TRUE(client_->send(plaintext));
    pump();
}

std::string MemoryTlsPair::serverSends(std::string_view plaintext, std::size_t chunk) {
    EXPECT_TRUE(server_->encrypt(plaintext, records_));
    std::string records(records_.view());
    toClient_.append(records);
    records_.clear();
    pump(chunk);
    return records;
}

void MemoryTlsPair::serverClosesNotify() {
    EXPECT_TRUE(server_->closeNotify(records_));
    toClient_.append(records_.view());
    records_.clear();
    pump();
}

}  // namespace loopwire::test
