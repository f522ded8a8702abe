#include "ProxyIntake.h"

#include "base/Check.h"
#include "base/Limits.h"
#include "proxy/ProxyHeader.h"

#include <cstring>

namespace loopwire {

std::size_t ProxyIntake::restoreCarried(char* buffer, std::size_t capacity) noexcept {
    if (!carried_ || carried_->empty()) return 0;
    LW_CHECK(carried_->size() <= capacity);
    std::memcpy(buffer, carried_->data(), carried_->size());
    return carried_->size();
}

ProxyIntake::Verdict ProxyIntake::take(std::string_view bytes, const SocketAddress& peer, std::size_t& consumed,
                                       SocketAddress& proxied) {
    LW_CHECK(policy_ != nullptr);
    consumed = 0;
    proxy::ProxyHeader header;
    const proxy::ProxyResult result = header.parse(bytes);
    const ProxyPolicy& policy = *policy_;
    switch (result.status) {
        case proxy::ProxyStatus::NeedMore:
            // Every byte so far belongs to the header, which is bounded: they are kept for the next read.
            LW_CHECK(bytes.size() < limits::kMaxProxyHeaderBytes);
            if (!carried_) carried_ = std::make_unique<ByteBuffer>();
            carried_->clear();
            carried_->append(bytes);
            return Verdict::Wait;
        case proxy::ProxyStatus::Absent:
            if (policy.mode() == ProxyProtocol::Required) return Verdict::Reject;
            break;
        case proxy::ProxyStatus::Error:
            return Verdict::Reject;
        case proxy::ProxyStatus::Complete:
            // A header from a source that may not send one is a client claiming an address it does not have.
            if (!policy.trusts(peer)) return Verdict::Reject;
            if (header.namesClient()) {
                proxied = SocketAddress::fromBytes(header.sourceAddress, header.addressLength(), header.sourcePort);
            }
            consumed = result.consumed;
            break;
    }
    policy_ = nullptr;
    carried_.reset();
    return Verdict::Pass;
}

}  // namespace loopwire
