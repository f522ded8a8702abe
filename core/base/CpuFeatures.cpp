#include "base/CpuFeatures.h"

namespace loopwire::cpu {

namespace {

bool detectAvx2() noexcept {
#if defined(__x86_64__)
    // __builtin_cpu_init first: this may run before the compiler runtime's own constructor has.
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
#else
    return false;
#endif
}

}  // namespace

const bool kHasAvx2 = detectAvx2();

}  // namespace loopwire::cpu
