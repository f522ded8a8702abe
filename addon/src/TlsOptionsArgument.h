// TlsOptionsArgument: the TLS options of SSLApp(options) and app.addServerName(hostname, options), read from a
// JavaScript object into a SocketContextOptions.
//
// The fields of uWebSockets.js (key_file_name, cert_file_name, ca_file_name, passphrase, dh_params_file_name,
// ssl_ciphers: RecognizedString; ssl_prefer_low_memory_usage: boolean), and beyond it key, cert and ca: PEM in
// memory, as a string, a Buffer, an ArrayBuffer or any ArrayBufferView. Absent, undefined and null fields are
// not set. A field of another type is a TypeError naming it ("SSLApp: options.key must be a string, a Buffer or
// an ArrayBuffer"); so is a text with a NUL byte where a file name or passphrase goes. The bytes are copied (a
// getter may run JavaScript, which may detach or change a buffer read earlier), so options() stays valid as
// long as this object lives. Allocates: set-up time only.
#pragma once

#include "V8Headers.h"

#include <loopwire/SocketContextOptions.h>

#include <string>

namespace loopwire::addon {

class TlsOptionsArgument {
public:
    // Reads value (an object, or undefined/null for no fields). Returns false after throwing; `what` prefixes
    // messages ("SSLApp", "app.addServerName").
    bool read(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what);

    const SocketContextOptions& options() const noexcept { return options_; }

private:
    bool readText(v8::Isolate* isolate, v8::Local<v8::Object> object, const char* field, std::string& into, bool isPem,
                  const char* what);

    std::string keyFileName_, certFileName_, caFileName_, passphrase_, dhParamsFileName_, ciphers_, groups_;
    std::string key_, cert_, ca_;
    SocketContextOptions options_;
};

}  // namespace loopwire::addon
