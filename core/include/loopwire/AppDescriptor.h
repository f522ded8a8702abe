// AppDescriptor: a handle to an App that sockets can be handed to from other threads (App::getDescriptor).
//
// Copyable, and safe to copy, pass and destroy on any thread: it shares the App's inbox, not the App, so it stays
// valid after the App has closed or gone (isOpen() turns false, and acceptors holding it skip it and drop it).
// Two descriptors of one App compare equal. A default-constructed descriptor refers to no App.
#pragma once

#include <cstddef>
#include <memory>

namespace loopwire {

class SocketInbox;

class AppDescriptor {
public:
    AppDescriptor() noexcept = default;
    // For the core: App::getDescriptor builds it.
    explicit AppDescriptor(std::shared_ptr<SocketInbox> inbox) noexcept : inbox_(std::move(inbox)) {}

    // True while the App takes sockets: from its getDescriptor() until its close() or destruction. Thread-safe.
    bool isOpen() const noexcept;
    // Sockets handed to the App that its loop has not taken yet. Thread-safe.
    std::size_t pendingSockets() const noexcept;

    explicit operator bool() const noexcept { return inbox_ != nullptr; }
    friend bool operator==(const AppDescriptor&, const AppDescriptor&) noexcept = default;

    const std::shared_ptr<SocketInbox>& inbox() const noexcept { return inbox_; }

private:
    std::shared_ptr<SocketInbox> inbox_;
};

}  // namespace loopwire
