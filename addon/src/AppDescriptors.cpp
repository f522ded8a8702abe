// The App's methods for several threads, as uWebSockets.js v20 names them: getDescriptor, addChildAppDescriptor,
// removeChildAppDescriptor, adoptSocket (see docs/node/multi-core.md).
//
// A descriptor is a number, so that it crosses threads by postMessage as uWebSockets.js's does. There, it is the
// App's address, which a mistake turns into a crash; here it is a key into a registry the whole process shares
// (every worker loads this same module), issued from 1 upwards and never reused. A number the registry never
// issued is refused with a RangeError; one whose App has closed or ended since is accepted and changes nothing,
// because a worker may end between posting its descriptor and the acceptor reading it. The registry holds core
// AppDescriptors, which stay valid however the App ends (see <loopwire/AppDescriptor.h>).
#include "AppWrap.h"

#include "BytesArgument.h"
#include "Errors.h"
#include "NumberArgument.h"

#include <loopwire/AppDescriptor.h>

#include <climits>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace loopwire::addon {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

class DescriptorRegistry {
public:
    // Every environment of the process (main thread and workers) uses the one registry. Never destroyed: a
    // worker may still look a number up while the process exits.
    static DescriptorRegistry& instance() {
        static auto* registry = new DescriptorRegistry;
        return *registry;
    }

    // Registers descriptor and returns its new number. Forgets, meanwhile, the descriptors whose App has ended.
    std::uint64_t issue(const AppDescriptor& descriptor) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::erase_if(entries_, [](const auto& entry) { return !entry.second.isOpen(); });
        entries_.emplace(++lastIssued_, descriptor);
        return lastIssued_;
    }

    enum class Lookup { Found, Ended, Unknown };

    // Found: *descriptor is the App's. Ended: the number was issued, but its App has gone since.
    Lookup find(std::uint64_t number, AppDescriptor* descriptor) const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (number == 0 || number > lastIssued_) return Lookup::Unknown;
        auto found = entries_.find(number);
        if (found == entries_.end()) return Lookup::Ended;
        *descriptor = found->second;
        return Lookup::Found;
    }

private:
    mutable std::mutex mutex_;
    std::uint64_t lastIssued_ = 0;
    std::unordered_map<std::uint64_t, AppDescriptor> entries_;
};

// Reads args[0] as a descriptor for method ("app.addChildAppDescriptor"); throws and returns nullopt when it is
// not a number getDescriptor() returned in this process. *ended is set when its App has gone since.
std::optional<AppDescriptor> readDescriptor(const Args& args, const char* method, bool* ended) {
    v8::Isolate* isolate = args.GetIsolate();
    std::string what = std::string(method) + ": descriptor";
    std::optional<std::uint64_t> number = readSize(isolate, args[0], what.c_str());
    if (!number) return std::nullopt;
    AppDescriptor descriptor;
    switch (DescriptorRegistry::instance().find(*number, &descriptor)) {
        case DescriptorRegistry::Lookup::Found:
            *ended = false;
            return descriptor;
        case DescriptorRegistry::Lookup::Ended:
            *ended = true;
            return descriptor;
        case DescriptorRegistry::Lookup::Unknown:
            break;
    }
    std::string message =
        what + " " + std::to_string(*number) + " is not a number that app.getDescriptor() returned in this process";
    throwRangeError(isolate, message.c_str());
    return std::nullopt;
}

}  // namespace

// Takes nothing; returns this App's descriptor (a number, the same every time), for addChildAppDescriptor on
// another thread's App. From then on the App takes sockets from acceptors, and keeps its thread's loop alive
// until close().
void AppWrap::getDescriptor(const Args& args) {
    AppWrap& app = unwrap(args);
    AppDescriptor descriptor = app.app_.getDescriptor();
    if (app.descriptor_ == 0) app.descriptor_ = DescriptorRegistry::instance().issue(descriptor);
    args.GetReturnValue().Set(static_cast<double>(app.descriptor_));
}

// Takes (descriptor: number from getDescriptor()); returns this. Each socket this App's listeners accept goes to
// its children in turn; adding a child twice gives it two turns.
void AppWrap::addChildAppDescriptor(const Args& args) {
    AppWrap& app = unwrap(args);
    bool ended = false;
    std::optional<AppDescriptor> child = readDescriptor(args, "app.addChildAppDescriptor", &ended);
    if (!child) return;
    if (!ended) app.app_.addChildApp(*child);
    args.GetReturnValue().Set(args.This());
}

// Takes (descriptor: number from getDescriptor()); returns this. Removes every turn of that child; a child that
// was never added is ignored.
void AppWrap::removeChildAppDescriptor(const Args& args) {
    AppWrap& app = unwrap(args);
    bool ended = false;
    std::optional<AppDescriptor> child = readDescriptor(args, "app.removeChildAppDescriptor", &ended);
    if (!child) return;
    if (!ended) app.app_.removeChildApp(*child);
    args.GetReturnValue().Set(args.This());
}

// Takes (fd: number, ip?: RecognizedString); returns this. Serves fd, a connected stream socket, as if this App
// had accepted it, and owns it from then on. ip is accepted as uWebSockets.js accepts it; the peer's address is
// read from the socket itself. A descriptor that is not an open, connected stream socket is a RangeError, and is
// left open.
void AppWrap::adoptSocket(const Args& args) {
    AppWrap& app = unwrap(args);
    v8::Isolate* isolate = args.GetIsolate();
    std::optional<std::uint32_t> fd = readInteger(isolate, args[0], INT_MAX, "app.adoptSocket: fd");
    if (!fd) return;
    if (!args[1]->IsUndefined()) {
        BytesArgument ip;
        if (!ip.read(isolate, args[1])) return throwTypeError(isolate, "app.adoptSocket: ip must be a string");
    }
    if (!app.app_.tryAdoptSocket(static_cast<int>(*fd))) {
        std::string message = "app.adoptSocket: fd " + std::to_string(*fd) +
                              " is not an open, connected stream socket, or is one this App serves already (it was "
                              "left open)";
        return throwRangeError(isolate, message.c_str());
    }
    args.GetReturnValue().Set(args.This());
}

}  // namespace loopwire::addon
