// App's compression members, here with the compression layer (as AppStaticFiles.cpp is with the static one), so
// that http/ does not depend on compress/.
#include "ResponseCompressor.h"

#include <loopwire/App.h>

#include <cstdio>

namespace loopwire {

bool App::tryCompress(std::string_view pattern, const ResponseCompressionOptions& options, std::string& error) {
    if (server_->isDispatching()) {
        error = "compress: rules cannot be added while a request is being handled";
        return false;
    }
    return compress::ResponseCompressor::of(*server_).addRule(pattern, options, error);
}

App& App::compress(std::string_view pattern, const ResponseCompressionOptions& options) {
    std::string error;
    if (!tryCompress(pattern, options, error)) std::fprintf(stderr, "loopwire: %s\n", error.c_str());
    return *this;
}

}  // namespace loopwire
