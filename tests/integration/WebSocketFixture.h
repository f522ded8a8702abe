// The fixture of the WebSocket integration tests (WebSocketTest.cpp, WebSocketFlowTest.cpp): a server on /ws that
// logs every handler event (EventLog) and echoes every message, user data that counts its destruction, and
// helpers to connect and to expect a failure with a given close code. Every test runs on both loop backends.
#pragma once

#include "Fixture.h"
#include "WsTestClient.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace loopwire::test::websocket {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// What the server's handlers did, in order, as text ("open:7", "message:1:hello", "close:1000:done"...). Written
// on the server thread, read and waited on by the test.
class EventLog {
public:
    void add(std::string event) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            events_.push_back(std::move(event));
        }
        changed_.notify_all();
    }
    // Waits until `count` events start with prefix; returns whether they did within the deadline.
    bool waitFor(const std::string& prefix, std::size_t count = 1, std::chrono::milliseconds deadline = 5s) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, deadline, [&] { return countLocked(prefix) >= count; });
    }
    std::size_t count(const std::string& prefix) {
        std::lock_guard<std::mutex> lock(mutex_);
        return countLocked(prefix);
    }
    std::vector<std::string> events() {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_;
    }
    // The index of the first event that starts with prefix, or -1.
    int indexOf(const std::string& prefix) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t i = 0; i < events_.size(); ++i) {
            if (events_[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
        }
        return -1;
    }

private:
    std::size_t countLocked(const std::string& prefix) const {
        std::size_t n = 0;
        for (const std::string& event : events_)
            n += event.rfind(prefix, 0) == 0 ? 1 : 0;
        return n;
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> events_;
};

inline std::string joined(const std::vector<std::string>& events) {
    std::string all;
    for (const std::string& event : events)
        all += (event.size() > 80 ? event.substr(0, 80) + "..." : event) + "\n";
    return all;
}

// The user data of the tests' routes. Only the instance that was moved last counts its destruction, so that
// destroyed tells how many connections' user data were destroyed (moved-from temporaries do not count).
struct PerSocket {
    int id = 0;
    std::atomic<int>* destroyed = nullptr;

    PerSocket() = default;
    PerSocket(int initialId, std::atomic<int>* counter) : id(initialId), destroyed(counter) {}
    PerSocket(PerSocket&& other) noexcept : id(other.id), destroyed(std::exchange(other.destroyed, nullptr)) {}
    PerSocket& operator=(PerSocket&&) = delete;
    ~PerSocket() {
        if (destroyed != nullptr) ++*destroyed;
    }
};

using Behavior = WebSocketBehavior<PerSocket>;
using Socket = WebSocket<PerSocket>;

// A route that logs every event and echoes every message.
inline Behavior echoBehavior(EventLog* log) {
    Behavior behavior;
    behavior.open = [log](Socket* ws) { log->add("open:" + std::to_string(ws->getUserData()->id)); };
    behavior.message = [log](Socket* ws, std::string_view message, OpCode opCode) {
        log->add("message:" + std::to_string(static_cast<int>(opCode)) + ":" + std::string(message));
        ws->send(message, opCode);
    };
    behavior.dropped = [log](Socket*, std::string_view message, OpCode) {
        log->add("dropped:" + std::to_string(message.size()));
    };
    behavior.drain = [log](Socket*) { log->add("drain"); };
    behavior.ping = [log](Socket*, std::string_view message) { log->add("ping:" + std::string(message)); };
    behavior.pong = [log](Socket*, std::string_view message) { log->add("pong:" + std::string(message)); };
    behavior.close = [log](Socket*, int code, std::string_view reason) {
        log->add("close:" + std::to_string(code) + ":" + std::string(reason));
    };
    return behavior;
}

class WebSockets : public BackendTest {
protected:
    // The server goes first: its handlers write to log_.
    void TearDown() override { server_.reset(); }

    // Serves echoBehavior on /ws, changed by customize (on the server thread, before listening).
    void serveWs(std::function<void(Behavior&, App&)> customize = {}, ServerOptions options = {}) {
        options.backend = backend();
        serve(options, [this, customize](App& app) {
            Behavior behavior = echoBehavior(&log_);
            if (customize) customize(behavior, app);
            app.ws<PerSocket>("/ws", std::move(behavior));
        });
    }

    // Opens a WebSocket on /ws and waits for its open handler.
    std::unique_ptr<WsTestClient> connect(std::string_view extraHeaders = {}) {
        std::size_t opened = log_.count("open:");
        auto client = std::make_unique<WsTestClient>(port());
        auto response = client->handshake("/ws", extraHeaders);
        EXPECT_TRUE(response);
        if (response) {
            EXPECT_EQ(response->status, 101) << response->statusLine;
        }
        EXPECT_TRUE(log_.waitFor("open:", opened + 1));
        return client;
    }

    // Sends bytes on a new WebSocket and expects the server to fail the connection with code: a close frame with
    // it, the close handler with it, and the end of the connection.
    void expectFailure(std::string_view bytes, int code) {
        const std::string closeEvent = "close:" + std::to_string(code) + ":";
        std::size_t closes = log_.count(closeEvent);
        auto client = connect();
        client->send(bytes);
        auto frame = client->readCloseFrame();
        ASSERT_TRUE(frame) << "no close frame";
        EXPECT_EQ(frame->closeCode(), code) << frame->closeReason();
        EXPECT_TRUE(client->waitForClose());
        EXPECT_TRUE(log_.waitFor(closeEvent, closes + 1)) << joined(log_.events());
    }

    EventLog log_;
};

}  // namespace loopwire::test::websocket
