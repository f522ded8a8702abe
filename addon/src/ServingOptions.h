// The options app.static and res.sendFile share (the fields StaticFileOptions and SendFileOptions have in common),
// read alike, with the same messages: dotfiles, maxAge, immutable, precompressed, compress, sendfile, etag,
// lastModified, cacheBytes, mimeTypes.
#pragma once

#include "OptionFields.h"

#include <loopwire/StaticFileOptions.h>

#include <string>
#include <utility>
#include <vector>

namespace loopwire::addon {

// options.dotfiles: 'deny' or 'allow'.
bool readDotfiles(OptionFields& fields, DotfilePolicy& policy);
// options.mimeTypes: { extension: contentType }; the core checks each pair. Appends to types.
bool readMimeTypes(OptionFields& fields, std::vector<std::pair<std::string, std::string>>& types);

template <typename Options>
bool readServingOptions(OptionFields& fields, Options& options) {
    std::uint64_t cacheBytes = options.cacheBytes;
    if (!readDotfiles(fields, options.dotfiles) ||
        !fields.readInteger("maxAge", 0, 0x7FFFFFFFu, options.maxAgeSeconds) ||
        !fields.readBoolean("immutable", options.immutable) ||
        !fields.readBoolean("precompressed", options.precompressed) ||
        !fields.readBoolean("compress", options.compress) || !fields.readBoolean("sendfile", options.sendfile) ||
        !fields.readBoolean("etag", options.etag) || !fields.readBoolean("lastModified", options.lastModified) ||
        !fields.readSize("cacheBytes", cacheBytes) || !readMimeTypes(fields, options.mimeTypes)) {
        return false;
    }
    options.cacheBytes = static_cast<std::size_t>(cacheBytes);
    return true;
}

}  // namespace loopwire::addon
