// LentBuffer: an ArrayBuffer over native bytes that JavaScript may read during one callback only: a body chunk
// in the loop's receive buffer, zero-copy.
//
// The buffer is created when the LentBuffer is, and detached when it goes out of scope (right after the
// callback), so code that kept it sees byteLength 0 instead of bytes the loop has reused. (It carries no detach
// key: Node 20 aborts the process when structuredClone or postMessage is asked to transfer a buffer that has
// one. Transferring a lent chunk is documented as a mistake, as in uWebSockets.js; the memory it would reach
// stays allocated, so the mistake costs wrong bytes, never a crash.) The caller holds a HandleScope that
// outlives the LentBuffer.
#pragma once

#include "V8Headers.h"

#include <string_view>

namespace loopwire::addon {

class LentBuffer {
public:
    LentBuffer(v8::Isolate* isolate, std::string_view bytes);
    ~LentBuffer();
    LentBuffer(const LentBuffer&) = delete;
    LentBuffer& operator=(const LentBuffer&) = delete;

    v8::Local<v8::ArrayBuffer> get() const noexcept { return buffer_; }

private:
    v8::Local<v8::ArrayBuffer> buffer_;
};

}  // namespace loopwire::addon
