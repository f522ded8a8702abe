// SplittingRelay: a TCP relay on a free loopback port between one client and a server (127.0.0.1:port). What
// the client sends goes on as it came; what the server sends goes on as it came too, until splitFromNowOn():
// from then on each piece the relay reads from the server reaches the client in two writes, a pause apart, so
// that the client's reads end inside the server's messages. For tests of a reader's buffers (RedisBroker's).
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace loopwire::test {

class SplittingRelay {
public:
    // The pause between the two halves of a piece.
    static constexpr int kPauseMs = 2;

    explicit SplittingRelay(int serverPort);
    ~SplittingRelay();
    SplittingRelay(const SplittingRelay&) = delete;
    SplittingRelay& operator=(const SplittingRelay&) = delete;

    int port() const noexcept { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
    void splitFromNowOn() noexcept { split_ = true; }
    // Pieces delivered in two writes so far.
    int splitPieces() const noexcept { return splitPieces_.load(); }

private:
    void relay(int client);

    int serverPort_;
    int listener_ = -1;
    int port_ = 0;
    int stopPipe_[2] = {-1, -1};
    std::atomic<bool> split_{false};
    std::atomic<int> splitPieces_{0};
    std::thread thread_;
};

}  // namespace loopwire::test
