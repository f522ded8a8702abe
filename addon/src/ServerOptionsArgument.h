// ServerOptionsArgument: what App(options) and SSLApp(options) take beyond TLS, read from a JavaScript object into
// the core's ServerOptions: the PROXY protocol settings (beyond uWebSockets.js, which reads an optional version 2
// header and has no option for it).
//
//   proxy_protocol: 'optional' (the default: a header is read when a connection starts with one, as uWebSockets.js
//                   does), 'required' (a connection without one is closed) or 'off' (none is read);
//   proxy_trusted_sources: an array of addresses and networks ('10.0.0.0/8', '2001:db8::/32', '192.0.2.7'): only
//                   connections from them may send a header, any other that does is closed.
//
// A field of the wrong type is a TypeError, an unknown proxy_protocol a RangeError, each naming the field; an
// entry of proxy_trusted_sources that is no address or network is found by the core (App::constructorFailed) and
// reported by AppWrap as a RangeError. Absent, undefined and null fields keep the defaults. Allocates: set-up
// time only.
#pragma once

#include "V8Headers.h"

#include <loopwire/App.h>

namespace loopwire::addon {

class ServerOptionsArgument {
public:
    // Reads value (an object, or undefined/null for the defaults). Returns false after throwing; `what` prefixes
    // messages ("App", "SSLApp").
    bool read(v8::Isolate* isolate, v8::Local<v8::Value> value, const char* what);

    const ServerOptions& options() const noexcept { return options_; }

private:
    ServerOptions options_;
};

}  // namespace loopwire::addon
