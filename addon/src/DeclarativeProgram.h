// DeclarativeProgram: a route answered natively, without calling JavaScript: the bytes that
// DeclarativeResponse.end() returns (addon/lib/DeclarativeResponse.js), given to app.get(pattern, bytes).
//
// The program is a sequence of instructions, each an opcode byte and its operands (the same encoding as
// uWebSockets.js v20's DeclarativeResponse): 1-byte-length operands for header names and values, status, and the
// names of query values, headers and parameters to copy; 2-byte (little-endian) lengths for body text.
//   0 end(text)   1 writeHeader(key, value)   2 writeBody (no operation, as in uWebSockets.js)
//   3 write(query value of key)   4 write(header value of key)   5 write(text)
//   6 write(parameter value of key)   7 writeStatus(status)
// parse() checks the whole program once, when the route is added, so run() trusts it. run() allocates nothing.
#pragma once

#include <loopwire/HttpRequest.h>
#include <loopwire/HttpResponse.h>

#include <optional>
#include <string>
#include <string_view>

namespace loopwire::addon {

class DeclarativeProgram {
public:
    // A program from bytes, or nullopt when they are not a well-formed program.
    static std::optional<DeclarativeProgram> parse(std::string_view bytes);

    // Answers one request.
    void run(HttpResponse* response, HttpRequest* request) const;

private:
    explicit DeclarativeProgram(std::string_view bytes) : bytes_(bytes) {}

    std::string bytes_;
};

// The route handler stored in the core for a declarative route: a pointer to the program its App owns.
struct DeclarativeHandler {
    const DeclarativeProgram* program;
    void operator()(HttpResponse* response, HttpRequest* request) const { program->run(response, request); }
};

}  // namespace loopwire::addon
