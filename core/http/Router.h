// Router: maps a method and a path to the handlers registered for them, in priority order.
//
// Pure: no sockets, no loop. Routes are added and removed at set-up time (that may allocate); dispatch()
// allocates nothing.
//
// Patterns: they start with '/', segments are separated by '/'. A segment ":name" matches any one non-empty
// segment and captures it as a parameter; a final segment "*" matches whatever remains, provided something does
// ("/a/*" matches "/a/" and "/a/b/c", not "/a"). Paths are given without the query and matched byte for byte;
// trailing slashes count. See docs/decisions/router.md for the exact rules, which follow uWebSockets v20.
// Methods are registered as upper case tokens ("GET", "POST") and compared exactly (case-sensitively) with the
// request's method, or kAnyMethod for routes that match every method.
//
// Order: routes for the request's own method are tried before kAnyMethod routes; within each, a static
// segment wins over a parameter, which wins over a wildcard, segment by segment. A handler may decline
// (yield), and dispatch() then tries the next matching route.
#pragma once

#include "../base/Limits.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loopwire {

class RouteMatch {
public:
    std::uint32_t handlerId() const noexcept { return handlerId_; }
    std::size_t parameterCount() const noexcept { return parameterCount_; }
    // The index-th ":name" value of the matched pattern, in pattern order; empty when out of range.
    std::string_view parameter(std::size_t index) const noexcept;
    // The value of ":name"; empty when the matched pattern has no such parameter.
    std::string_view parameter(std::string_view name) const noexcept;
    // The pattern that matched, as registered.
    std::string_view pattern() const noexcept { return pattern_; }

private:
    friend class Router;
    std::uint32_t handlerId_ = 0;
    std::size_t parameterCount_ = 0;
    std::string_view pattern_;
    const std::string* parameterNames_ = nullptr;
    std::string_view parameters_[limits::kMaxRouteParameters];
};

class Router {
public:
    using HandlerId = std::uint32_t;
    static constexpr std::string_view kAnyMethod = "*";

    Router();
    ~Router();
    Router(const Router&) = delete;
    Router& operator=(const Router&) = delete;

    // Adds a route. Returns false, changing nothing, when the pattern is malformed (no leading '/', an empty
    // parameter name, more than kMaxRouteParameters parameters, '*' other than as the whole last segment) or
    // the method is empty. Adding a method and pattern that are already registered replaces that route's
    // handler id; as in uWebSockets, patterns that differ only in parameter names ("/u/:id", "/u/:name") are
    // the same route, and the new pattern and names replace the old ones. May allocate.
    bool add(std::string_view method, std::string_view pattern, HandlerId id);

    // Removes the route with this method and pattern (parameter names ignored, as in add); returns whether
    // there was one. May allocate.
    bool remove(std::string_view method, std::string_view pattern);

    // The handler id of the route with this method and pattern (parameter names ignored, as in add), or false.
    // May allocate.
    bool find(std::string_view method, std::string_view pattern, HandlerId& id) const;

    // Tries every route that matches, in priority order, calling tryHandler(const RouteMatch&) -> bool for
    // each until one returns true (handled). Returns whether one did; false means 404. tryHandler may not add
    // or remove routes, nor dispatch on this router again (the match it receives lives in the router and is
    // valid only during that call). No allocation.
    template <typename TryHandler>
    bool dispatch(std::string_view method, std::string_view path, TryHandler&& tryHandler) {
        return dispatchImpl(method, path, visitorFor(tryHandler), true);
    }

    // The same, with the routes of method only: the kAnyMethod routes are not tried. For a pass that is
    // followed by another (the WebSocket routes, tried before a GET request's own method): the any routes must
    // come after every route of the request's method, not inside the first pass.
    template <typename TryHandler>
    bool dispatchMethodOnly(std::string_view method, std::string_view path, TryHandler&& tryHandler) {
        return dispatchImpl(method, path, visitorFor(tryHandler), false);
    }

private:
    struct Node;   // one segment of a pattern; defined in Router.cpp
    struct Tree;   // the routes of one method (or of kAnyMethod), with an exact-match index of static ones
    struct Frame;  // one level of the dispatch walk
    struct Visitor {
        bool (*call)(void* context, const RouteMatch& match);
        void* context;
    };
    template <typename TryHandler>
    static Visitor visitorFor(TryHandler& tryHandler) noexcept;
    bool dispatchImpl(std::string_view method, std::string_view path, Visitor visitor, bool tryAnyMethod);
    bool dispatchTree(const Tree& tree, std::string_view path, Visitor visitor);
    bool walk(const Tree& tree, std::string_view path, const Node* skip, Visitor visitor);
    bool offer(const Node& node, std::size_t parameterCount, Visitor visitor);
    Tree* findTree(std::string_view method) const noexcept;

    // Method trees in the order dispatch() scans them (GET first); the kAnyMethod tree stands apart.
    std::vector<std::unique_ptr<Tree>> methodTrees_;
    std::unique_ptr<Tree> anyTree_;
    // The walk's stack, sized by add() to the deepest pattern ever registered, so dispatch() never grows it.
    std::vector<Frame> frames_;
    RouteMatch scratch_;
    bool dispatching_ = false;
};

template <typename TryHandler>
Router::Visitor Router::visitorFor(TryHandler& tryHandler) noexcept {
    using Callable = std::remove_reference_t<TryHandler>;
    return Visitor{[](void* context, const RouteMatch& match) -> bool {
                       return static_cast<bool>((*static_cast<Callable*>(context))(match));
                   },
                   const_cast<void*>(static_cast<const void*>(std::addressof(tryHandler)))};
}

}  // namespace loopwire
