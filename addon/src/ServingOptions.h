// The options app.static and res.sendFile share (FileServingOptions, the base of StaticFileOptions and
// SendFileOptions), read alike, with the same messages: dotfiles, maxAge, immutable, precompressed, compress,
// sendfile, etag, lastModified, cacheBytes, mimeTypes.
#pragma once

#include "OptionFields.h"

#include <loopwire/StaticFileOptions.h>

namespace loopwire::addon {

// Reads them into options, leaving the absent ones as they are; false after throwing (OptionFields' rules). mimeTypes
// are appended (the core checks each pair).
bool readServingOptions(OptionFields& fields, FileServingOptions& options);

}  // namespace loopwire::addon
