#include "MemoryStream.h"

#include "base/Check.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace loopwire {

namespace {

// The eventfd's counter is the server end's readiness as poll(2) reads it: always readable (a count above 0), and
// writable unless it stands at its maximum. A receive that finds nothing says EAGAIN, as a kernel socket's spurious
// report does, so a readable level costs nothing; a writable one that were wrong would call onWritable() with no
// room, so room decides it.
constexpr std::uint64_t kReadableLevel = 1;
constexpr std::uint64_t kReadableNotWritableLevel = 0xfffffffffffffffeULL;

}  // namespace

thread_local MemoryStream* MemoryStream::streams_ = nullptr;

MemoryStream::MemoryStream() : next_(streams_) {
    descriptor_ = ::eventfd(static_cast<unsigned>(kReadableLevel), EFD_NONBLOCK | EFD_CLOEXEC);
    LW_CHECK(descriptor_ >= 0);
    streams_ = this;
}

MemoryStream::~MemoryStream() {
    MemoryStream** link = &streams_;
    while (*link != this)
        link = &(*link)->next_;
    *link = next_;
    if (descriptor_ >= 0) ::close(descriptor_);
}

MemoryStream* MemoryStream::find(int descriptor) noexcept {
    for (MemoryStream* stream = streams_; stream != nullptr; stream = stream->next_) {
        if (stream->descriptor_ == descriptor && descriptor >= 0) return stream;
    }
    return nullptr;
}

// An edge-triggered watch hears of a change only through a wakeup of the eventfd: reading the counter wakes those
// waiting to write, writing it those waiting to read. Both, every time, whatever changed; the loop then polls the
// level, which says what is ready now.
void MemoryStream::signal() noexcept {
    if (descriptor_ < 0) return;
    std::uint64_t count = 0;
    [[maybe_unused]] ssize_t done = ::read(descriptor_, &count, sizeof count);
    const std::uint64_t level = hasRoom() ? kReadableLevel : kReadableNotWritableLevel;
    done = ::write(descriptor_, &level, sizeof level);
}

int MemoryStream::faultFor(std::size_t call, std::size_t failFrom, int error) noexcept {
    return failFrom != 0 && call >= failFrom ? error : 0;
}

// ---- the client end ----

void MemoryStream::write(std::string_view bytes) {
    if (serverClosed_ || clientReset_ || clientEndedWriting_) return;
    toServer_.append(bytes);
    signal();
}

std::string MemoryStream::read(std::size_t maxBytes) {
    const std::size_t taken = std::min(maxBytes, toClient_.size());
    std::string bytes = toClient_.substr(0, taken);
    toClient_.erase(0, taken);
    if (taken > 0) signal();
    return bytes;
}

void MemoryStream::endWriting() {
    clientEndedWriting_ = true;
    signal();
}

void MemoryStream::reset() {
    clientReset_ = true;
    toServer_.clear();
    toServerRead_ = 0;
    signal();
}

void MemoryStream::setRoom(std::size_t bytes) {
    room_ = bytes;
    signal();
}

void MemoryStream::failReceive(std::size_t nth, int error) noexcept {
    failReceiveFrom_ = receives_ + nth;
    receiveError_ = error;
}

void MemoryStream::failSend(std::size_t nth, int error) noexcept {
    failSendFrom_ = sends_ + nth;
    sendError_ = error;
}

// ---- the server end ----

ssize_t MemoryStream::receive(char* into, std::size_t room) noexcept {
    ++receives_;
    int error = faultFor(receives_, failReceiveFrom_, receiveError_);
    if (error == 0 && clientReset_) error = ECONNRESET;
    if (error == 0 && serverClosed_) error = EBADF;
    if (error != 0) {
        errno = error;
        return -1;
    }
    const std::size_t waiting = unreadByServer();
    if (waiting == 0) {
        if (clientEndedWriting_) return 0;
        errno = EAGAIN;
        return -1;
    }
    const std::size_t taken = std::min({room, readChunk_, waiting});
    std::memcpy(into, toServer_.data() + toServerRead_, taken);
    toServerRead_ += taken;
    if (toServerRead_ == toServer_.size()) {
        toServer_.clear();
        toServerRead_ = 0;
    }
    // A socket reads once per report unless its buffer filled: what a short chunk left, bytes or the end of the
    // stream behind the last of them, needs a report of its own.
    if (unreadByServer() > 0 || clientEndedWriting_) signal();
    return static_cast<ssize_t>(taken);
}

ssize_t MemoryStream::send(std::string_view head, std::string_view tail) noexcept {
    ++sends_;
    int error = faultFor(sends_, failSendFrom_, sendError_);
    if (error == 0 && clientReset_) error = ECONNRESET;
    if (error == 0 && (serverClosed_ || serverEndedWriting_)) error = EPIPE;
    if (error != 0) {
        errno = error;
        return -1;
    }
    const std::size_t room = room_ > toClient_.size() ? room_ - toClient_.size() : 0;
    if (room == 0) {
        errno = EAGAIN;
        return -1;
    }
    const std::size_t fromHead = std::min(room, head.size());
    const std::size_t fromTail = std::min(room - fromHead, tail.size());
    toClient_.append(head.substr(0, fromHead));
    toClient_.append(tail.substr(0, fromTail));
    // The level must say "not writable" once the room is gone, or the next report would call that room.
    if (!hasRoom()) signal();
    return static_cast<ssize_t>(fromHead + fromTail);
}

bool MemoryStream::hasInput() const noexcept { return unreadByServer() > 0 || clientEndedWriting_ || clientReset_; }

bool MemoryStream::hasRoom() const noexcept { return clientReset_ || room_ > toClient_.size(); }

void MemoryStream::shutdownSending() noexcept { serverEndedWriting_ = true; }

void MemoryStream::closeServerEnd() noexcept {
    // As a kernel does: closed with input unread, the socket answers with a reset, and the reset makes the client's
    // kernel throw away what the client has not read yet.
    if (unreadByServer() > 0 && !clientReset_) {
        serverReset_ = true;
        toClient_.clear();
    }
    serverEndedWriting_ = true;
    serverClosed_ = true;
    toServer_.clear();
    toServerRead_ = 0;
    if (descriptor_ >= 0) ::close(descriptor_);
    descriptor_ = -1;
}

}  // namespace loopwire
