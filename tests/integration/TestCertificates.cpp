#include "TestCertificates.h"

#include "TestClient.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <unistd.h>

namespace loopwire::test {

namespace {

void run(const std::string& command) {
    CommandResult result = runCommand(command + " 2>&1");
    if (result.status != 0) throw std::runtime_error("test certificates: `" + command + "` failed: " + result.output);
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream file(path);
    file << text;
}

const std::string kNewKey = "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

// A key and a certificate for subject, signed by the test CA, with the extensions in extensions.
void makeSigned(const std::string& folder, const std::string& name, const std::string& subject,
                const std::string& extensions) {
    std::string base = folder + "/" + name;
    writeFile(base + ".ext", extensions + "\n");
    run(kNewKey + " -keyout " + base + ".key -out " + base + ".csr -subj '" + subject + "'");
    run("openssl x509 -req -in " + base + ".csr -CA " + folder + "/ca.pem -CAkey " + folder +
        "/ca.key -CAcreateserial -days 2 -out " + base + ".pem -extfile " + base + ".ext");
}

void removeFolder(const std::string& folder) { runCommand("rm -rf '" + folder + "'"); }

}  // namespace

const TestCertificates& TestCertificates::get() {
    static TestCertificates certificates;
    static std::once_flag made;
    std::call_once(made, [] {
        char pattern[] = "/tmp/loopwire-tls-XXXXXX";
        if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("test certificates: mkdtemp failed");
        TestCertificates& c = certificates;
        c.folder = pattern;
        static std::string folderToRemove = c.folder;
        std::atexit([] { removeFolder(folderToRemove); });
        const std::string& f = c.folder;
        run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + f + "/ca.key -out " +
            f + "/ca.pem -days 2 -subj /CN=loopwire-test-ca");
        makeSigned(f, "localhost", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
        makeSigned(f, "other", "/CN=other.test", "subjectAltName=DNS:other.test");
        makeSigned(f, "wildcard", "/CN=*.wild.test", "subjectAltName=DNS:*.wild.test");
        makeSigned(f, "client", "/CN=test client", "extendedKeyUsage=clientAuth");
        run("openssl pkey -in " + f + "/localhost.key -aes256 -passout 'pass:" + kPassphrase + "' -out " + f +
            "/encrypted.key");
        run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + f +
            "/stranger.key -out " + f +
            "/stranger.pem -days 2 -subj /CN=localhost -addext "
            "subjectAltName=DNS:localhost,IP:127.0.0.1");
        c.caFile = f + "/ca.pem";
        c.keyFile = f + "/localhost.key";
        c.certFile = f + "/localhost.pem";
        c.encryptedKeyFile = f + "/encrypted.key";
        c.otherKeyFile = f + "/other.key";
        c.otherCertFile = f + "/other.pem";
        c.wildcardKeyFile = f + "/wildcard.key";
        c.wildcardCertFile = f + "/wildcard.pem";
        c.clientKeyFile = f + "/client.key";
        c.clientCertFile = f + "/client.pem";
        c.strangerKeyFile = f + "/stranger.key";
        c.strangerCertFile = f + "/stranger.pem";
    });
    return certificates;
}

std::string readFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

}  // namespace loopwire::test
