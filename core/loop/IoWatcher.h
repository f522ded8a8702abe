// IoWatcher: one file descriptor registered with a Loop, and the object told when it is ready.
//
// The net layer derives its sockets from it. The loop calls onIo() on the loop thread with the ready events;
// onIo may unwatch and close the descriptor, but must not destroy the watcher itself (sockets are freed after
// the iteration, see Loop::deferDelete). Both backends register descriptors through an EpollSet, level-triggered
// unless io::kEdgeTriggered is among the requested events.
#pragma once

#include <cstdint>

namespace loopwire {

namespace io {
inline constexpr std::uint32_t kReadable = 1u << 0;
inline constexpr std::uint32_t kWritable = 1u << 1;
inline constexpr std::uint32_t kError = 1u << 2;   // reported, never requested
inline constexpr std::uint32_t kHangup = 1u << 3;  // reported, never requested
// Requested, never reported: readiness is reported once per change (a new arrival, new room), not for as long as
// it lasts. The watcher must then read until the kernel has nothing left, or ask again (Loop::rearmWatch).
inline constexpr std::uint32_t kEdgeTriggered = 1u << 4;
// Reported with kReadable, never requested: the peer's FIN had arrived when the descriptor was polled.
inline constexpr std::uint32_t kPeerEnded = 1u << 5;
}  // namespace io

class IoWatcher {
public:
    virtual void onIo(std::uint32_t events) = 0;

    int fd() const noexcept { return fd_; }
    std::uint32_t watchedEvents() const noexcept { return events_; }
    bool isWatched() const noexcept { return fd_ >= 0; }

protected:
    IoWatcher() = default;
    ~IoWatcher() = default;
    IoWatcher(const IoWatcher&) = delete;
    IoWatcher& operator=(const IoWatcher&) = delete;

private:
    friend class EpollSet;
    int fd_ = -1;
    std::uint32_t events_ = 0;
};

}  // namespace loopwire
