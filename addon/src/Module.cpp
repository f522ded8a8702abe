// The module's entry point: node calls it once in every environment (the main thread and each worker) that
// loads the addon. NODE_MODULE_INIT declares a context-aware addon, so workers may load it too.
#include "AddonState.h"
#include "V8Headers.h"

NODE_MODULE_INIT(/* exports, module, context */) {
    static_cast<void>(module);
    loopwire::addon::AddonState::initialize(exports, context);
}
