// LentBuffer: an ArrayBuffer over body bytes that JavaScript may read during one callback only (an onData chunk, a
// body collectBody assembled in one piece).
//
// The buffer is created when the LentBuffer is, and detached when it goes out of scope (right after the
// callback), so code that kept it sees byteLength 0 instead of bytes the loop has reused.
//
// Its memory outlives any transfer: a handler may transfer the buffer (structuredClone or postMessage with a
// transfer list) before it is detached, and the copy then holds the memory for as long as it lives, on this
// thread or another. (A detach key would refuse the transfer, but Node 20 aborts the process when asked to
// transfer a buffer that has one.) So bytes in a SharedBlock (the loop's receive buffer) are lent zero-copy with
// a reference to the block, released when V8 drops the buffer; other bytes (the connection's buffer of
// pipelined requests, which it frees or reuses) are first copied into the environment's lending block, which is
// reused once no transferred buffer holds it. A transferred chunk may later show other bytes: a mistake costs
// wrong bytes, never a crash. A zero-copy chunk at the same place and of the same length as the last one reuses that
// one's backing store when nothing else holds it (see LentBuffer.cpp). The caller holds a HandleScope that outlives
// the LentBuffer.
#pragma once

#include "V8Headers.h"

#include <string_view>

namespace loopwire {
class SharedBlock;
}

namespace loopwire::addon {

class AddonState;

class LentBuffer {
public:
    // holder: the SharedBlock bytes lie in (HttpResponse::blockHolding), or null.
    LentBuffer(AddonState& state, std::string_view bytes, SharedBlock* holder);
    ~LentBuffer();
    LentBuffer(const LentBuffer&) = delete;
    LentBuffer& operator=(const LentBuffer&) = delete;

    v8::Local<v8::ArrayBuffer> get() const noexcept { return buffer_; }

private:
    v8::Local<v8::ArrayBuffer> buffer_;
};

}  // namespace loopwire::addon
