// HttpRequest: the request a route handler answers, with the API of uWebSockets v20's HttpRequest.
//
// Valid only during the handler call (its views point into the connection's receive buffer); copy what you
// need before returning. Zero-copy and allocation-free. Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loopwire {

struct RequestHead;
class RouteMatch;
class HttpResponse;

class HttpRequest {
public:
    // The value of the first header field named lowerCaseKey (names are stored lower-case), or empty.
    std::string_view getHeader(std::string_view lowerCaseKey) const noexcept;
    // The path, without the query string.
    std::string_view getUrl() const noexcept;
    // The request-target as sent, query included.
    std::string_view getFullUrl() const noexcept;
    // The method in lower case ("get"), as uWebSockets v20 reports it.
    std::string_view getMethod() const noexcept;
    // The method as sent ("GET").
    std::string_view getCaseSensitiveMethod() const noexcept;
    // The raw query string, without '?'.
    std::string_view getQuery() const noexcept;
    // The percent-decoded value of the first query parameter named key ('+' decodes to a space). The view stays
    // valid during the handler; each call decodes into the request's scratch space. A key that is absent gives
    // a view whose data() is null; a key that is present gives a non-null data() even when its value is empty
    // ("?a=" and a valueless "?a"), so callers can tell the two apart as uWebSockets does.
    std::string_view getQuery(std::string_view key) noexcept;
    // Route parameters (":name" segments) by position and by name; empty when absent.
    std::string_view getParameter(std::size_t index) const noexcept;
    std::string_view getParameter(std::string_view name) const noexcept;
    std::size_t getParameterCount() const noexcept;

    // Declines the request: the router tries the next matching route once the handler returns.
    void setYield(bool yield) noexcept { yield_ = yield; }
    bool getYield() const noexcept { return yield_; }

    // Calls f(name, value) for every header field, in order.
    template <typename F>
    void forEach(F&& f) const {
        for (std::size_t i = 0, n = headerCount(); i < n; ++i) {
            auto [name, value] = headerAt(i);
            f(name, value);
        }
    }
    std::size_t headerCount() const noexcept;
    struct Header {
        std::string_view name;
        std::string_view value;
    };
    Header headerAt(std::size_t index) const noexcept;

    // Internal: built by the connection for each request.
    HttpRequest(RequestHead& head, char* scratch, std::size_t scratchBytes) noexcept
        : head_(&head), scratch_(scratch), scratchBytes_(scratchBytes) {}
    void setMatch(const RouteMatch* match) noexcept { match_ = match; }

    // Internal, for a route that yields a request it would otherwise refuse (a WebSocket route given an upgrade
    // request without a key or version, which uWebSockets hands to the HTTP routes): when no later route takes the
    // request, the server calls answer(response, this, context) instead of answering 404. The last route that
    // yields with one wins; the router clears it for nothing else.
    using FallbackAnswer = void (*)(HttpResponse* response, HttpRequest* request, void* context);
    void setFallbackAnswer(FallbackAnswer answer, void* context) noexcept {
        fallbackAnswer_ = answer;
        fallbackContext_ = context;
    }
    FallbackAnswer fallbackAnswer() const noexcept { return fallbackAnswer_; }
    void* fallbackContext() const noexcept { return fallbackContext_; }

private:
    static constexpr std::size_t kMaxMethodBytes = 32;

    RequestHead* head_;
    const RouteMatch* match_ = nullptr;
    FallbackAnswer fallbackAnswer_ = nullptr;
    void* fallbackContext_ = nullptr;
    char* scratch_;
    std::size_t scratchBytes_;
    std::size_t scratchUsed_ = 0;
    bool yield_ = false;
    // The lower-case method, made by the first getMethod() (most handlers never ask); 0 until then.
    mutable std::uint8_t methodLength_ = 0;
    mutable char lowerMethod_[kMaxMethodBytes];
};

}  // namespace loopwire
