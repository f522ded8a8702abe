// RespWriter: writes Redis commands, an array of bulk strings each, into a ByteBuffer.
//
// Pure; it allocates only when the buffer must grow (a client's outgoing buffer keeps its capacity, so a steady
// stream of commands allocates nothing). An argument is the concatenation of up to three byte strings, so that a
// channel name made of the application's prefix and a topic, a message made of an envelope and its payload, or a
// history key made of a hash tag's brace, a channel and a suffix, is written without being assembled first.
#pragma once

#include "base/ByteBuffer.h"

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace loopwire::resp {

struct RespArgument {
    RespArgument(std::string_view only) noexcept : first(only) {}  // NOLINT(google-explicit-constructor)
    RespArgument(const char* only) noexcept : first(only) {}       // NOLINT(google-explicit-constructor)
    RespArgument(std::string_view head, std::string_view tail) noexcept : first(head), second(tail) {}
    RespArgument(std::string_view head, std::string_view middle, std::string_view tail) noexcept
        : first(head), second(middle), third(tail) {}

    std::size_t size() const noexcept { return first.size() + second.size() + third.size(); }

    std::string_view first;
    std::string_view second;
    std::string_view third;
};

class RespWriter {
public:
    // Appends one command.
    static void appendCommand(ByteBuffer& out, std::initializer_list<RespArgument> arguments);
    // Appends the start of a command of `count` arguments; then appendArgument() each of them. For commands whose
    // argument count is known only at run time (a SUBSCRIBE of many channels).
    static void appendCommandHeader(ByteBuffer& out, std::size_t count);
    static void appendArgument(ByteBuffer& out, const RespArgument& argument);
    // The bytes appendArgument writes for argument.
    static std::size_t encodedSize(const RespArgument& argument) noexcept;
};

}  // namespace loopwire::resp
