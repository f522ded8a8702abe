// What a response's own fields say for App::compress; see ResponseCoder.h. Why each rule: docs/compression.md.
#include "ResponseCoder.h"

#include "HttpSyntax.h"

namespace loopwire {

bool ResponseCoding::noteField(const ResponseCoder& coder, std::string_view key, std::string_view value) noexcept {
    using http_syntax::equalsLowerCase;
    if (equalsLowerCase(key, "content-type")) {
        compressibleType = coder.isCompressibleType(value);
    } else if (equalsLowerCase(key, "content-encoding")) {
        // The handler codes the body itself (or says it is identity): it goes out as written.
        declined = true;
    } else if (equalsLowerCase(key, "vary")) {
        // A static file's own Vary, say: not said twice.
        varyWritten |= http_syntax::forEachListElement(
            value, [](std::string_view element) { return equalsLowerCase(element, "accept-encoding"); });
    } else if (coding != 0 && equalsLowerCase(key, "etag") && value.starts_with('"')) {
        return true;
    }
    return false;
}

}  // namespace loopwire
