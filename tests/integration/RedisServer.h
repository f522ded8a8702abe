// RedisServer: a real redis-server (Debian's, installed by scripts/deps.sh) for a test, on a free loopback port,
// in a temporary folder, persisting nothing. The destructor stops it and removes the folder, so every test cleans
// up even when an assertion fails.
//
// stop() and start() again keep the port (a restart, as an operator's would be); pause() and resume() stop the
// process with SIGSTOP and SIGCONT (a Redis that stops reading, its socket still open).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <sys/types.h>

namespace loopwire::test {

class RedisServer {
public:
    // Attempts at a free port before the server counts as not running.
    static constexpr int kStartAttempts = 5;

    // extraArguments: more redis-server options ("--requirepass", "secret"). tlsOnly: the port speaks TLS and
    // nothing listens in plain text (give the --tls-cert-file, --tls-key-file and --tls-ca-cert-file options);
    // command() does not work then. clusterBus: a cluster node's bus port (--cluster-port) is picked free with
    // the port, at each attempt.
    explicit RedisServer(std::vector<std::string> extraArguments = {}, bool tlsOnly = false, bool clusterBus = false);
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    // Whether redis-server is on this machine (the tests fail without it: scripts/deps.sh installs it).
    static bool available();

    int port() const noexcept { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
    bool running() const noexcept { return pid_ > 0; }

    // Starts the server (on the same port as before, after a stop) and waits until it accepts connections.
    // Returns whether it did within a deadline.
    bool start();
    void stop();
    void pause();
    void resume();
    // Sends one command (RESP, written by the caller) and returns the first reply's bytes, for checks such as
    // "PUBSUB NUMSUB".
    std::string command(const std::string& resp);
    // The same, for a command given as its arguments ({"CLUSTER", "KEYSLOT", "chat"}).
    std::string command(std::initializer_list<std::string> arguments);
    // The same, for arguments counted at run time (MIGRATE ... KEYS k1 k2 ...).
    std::string command(const std::vector<std::string>& arguments);

private:
    std::vector<std::string> extraArguments_;
    bool tlsOnly_ = false;
    std::string folder_;
    int port_ = 0;
    int clusterPort_ = 0;  // 0: none
    pid_t pid_ = -1;
};

}  // namespace loopwire::test
