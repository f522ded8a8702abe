// TestCertificates: keys and certificates for the TLS tests, made once per process with the openssl command in a
// temporary folder (EC P-256 keys, valid for two days): a test CA, server certificates it signed, a client
// certificate, an encrypted key, and a self-signed certificate no client trusts.
#pragma once

#include <string>

namespace loopwire::test {

struct TestCertificates {
    std::string folder;
    std::string caFile;   // the test CA's certificate
    std::string keyFile;  // localhost (and 127.0.0.1): key and certificate
    std::string certFile;
    std::string encryptedKeyFile;  // keyFile's key, encrypted with kPassphrase
    std::string otherKeyFile;      // other.test
    std::string otherCertFile;
    std::string wildcardKeyFile;  // *.wild.test
    std::string wildcardCertFile;
    std::string clientKeyFile;  // a client certificate (CN=test client) signed by the CA
    std::string clientCertFile;
    std::string strangerKeyFile;  // a self-signed localhost certificate, signed by no CA the tests trust
    std::string strangerCertFile;

    static constexpr const char* kPassphrase = "correct horse";

    // Made on first use; throws when the openssl command fails.
    static const TestCertificates& get();
};

// The whole file, for tests that pass PEM in memory.
std::string readFile(const std::string& path);

}  // namespace loopwire::test
