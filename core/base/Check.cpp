#include "Check.h"

#include <cstdio>
#include <cstdlib>

namespace loopwire {

void checkFailed(const char* condition, const char* file, int line) noexcept {
    std::fprintf(stderr, "loopwire: check failed: %s at %s:%d\n", condition, file, line);
    std::abort();
}

}  // namespace loopwire
