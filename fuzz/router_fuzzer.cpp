// Fuzz target for core/http/Router, checked against a brute-force model of the rules in docs/decisions/router.md.
//
// Input: lines separated by '\n'. Lines up to the first empty one set up routes: "METHOD PATTERN" adds (handler
// id = line number), "-METHOD PATTERN" removes. Every later line is a request, "METHOD PATH". Method and rest
// are split at the first space. For each request the target checks that dispatch() offers exactly the routes
// the model says match, in the model's order, with the right parameters, and that accepting the n-th offer stops
// there. add() and remove() results are checked against the model too.
#include "http/Router.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using loopwire::RouteMatch;
using loopwire::Router;

constexpr std::size_t kMaxSetupLines = 24;
constexpr std::size_t kMaxRequests = 64;

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "router_fuzzer: invariant broken: %s\n", what);
        std::abort();
    }
}

// A route as the model sees it: the pattern cut into segments, each tagged 'S'tatic, 'P'arameter or 'W'ildcard.
struct ModelRoute {
    std::string method;
    std::string pattern;
    std::vector<std::pair<char, std::string>> segments;
    Router::HandlerId id;
};

// The model's own reading of the pattern rules, written independently of Router.cpp's parser.
bool modelParse(std::string_view pattern, std::vector<std::pair<char, std::string>>& segments) {
    if (pattern.empty() || pattern[0] != '/') return false;
    std::vector<std::string> pieces(1);
    for (std::size_t i = 1; i < pattern.size(); ++i) {
        if (pattern[i] == '/') {
            pieces.emplace_back();
        } else {
            pieces.back() += pattern[i];
        }
    }
    std::size_t parameters = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const std::string& piece = pieces[i];
        const bool hasStar = piece.find('*') != std::string::npos;
        if (piece == "*" && i + 1 == pieces.size()) {
            segments.emplace_back('W', "");
        } else if (hasStar) {
            return false;
        } else if (!piece.empty() && piece[0] == ':') {
            if (piece.size() < 2) return false;
            ++parameters;
            segments.emplace_back('P', piece.substr(1));
        } else {
            segments.emplace_back('S', piece);
        }
    }
    return parameters <= loopwire::limits::kMaxRouteParameters;
}

std::string shapeOf(const ModelRoute& route) {
    std::string shape = route.method + '\n';
    for (const auto& [kind, text] : route.segments)
        shape += kind == 'S' ? "/S" + text : std::string("/") + kind;
    return shape;
}

// Whether route matches path; if so, the kinds along the way (for ordering) and the parameter values.
bool modelMatch(const ModelRoute& route, std::string_view path, std::string& kinds,
                std::vector<std::string_view>& values) {
    if (path.empty() || path[0] != '/') return false;
    std::vector<std::string_view> pathSegments;
    std::size_t begin = 1;
    for (;;) {
        std::size_t end = path.find('/', begin);
        if (end == std::string_view::npos) {
            pathSegments.push_back(path.substr(begin));
            break;
        }
        pathSegments.push_back(path.substr(begin, end - begin));
        begin = end + 1;
    }
    kinds.clear();
    values.clear();
    for (std::size_t i = 0; i < route.segments.size(); ++i) {
        const auto& [kind, text] = route.segments[i];
        if (kind == 'W') {
            kinds += '2';
            return pathSegments.size() > i;
        }
        if (i >= pathSegments.size()) return false;
        if (kind == 'S') {
            if (pathSegments[i] != text) return false;
            kinds += '0';
        } else {
            if (pathSegments[i].empty()) return false;
            values.push_back(pathSegments[i]);
            kinds += '1';
        }
    }
    return pathSegments.size() == route.segments.size();
}

struct Expected {
    int tree;  // 0: the request's own method, 1: kAnyMethod
    std::string kinds;
    const ModelRoute* route;
    std::vector<std::string_view> values;
};

std::vector<Expected> modelDispatch(const std::vector<ModelRoute>& routes, std::string_view method,
                                    std::string_view path) {
    std::vector<Expected> expected;
    for (const ModelRoute& route : routes) {
        int tree;
        if (route.method == Router::kAnyMethod) {
            tree = 1;
        } else if (route.method == method && method != Router::kAnyMethod) {
            tree = 0;
        } else {
            continue;
        }
        Expected entry{tree, {}, &route, {}};
        if (modelMatch(route, path, entry.kinds, entry.values)) expected.push_back(std::move(entry));
    }
    std::sort(expected.begin(), expected.end(), [](const Expected& a, const Expected& b) {
        if (a.tree != b.tree) return a.tree < b.tree;
        return a.kinds < b.kinds;
    });
    return expected;
}

void checkMatch(const RouteMatch& match, const Expected& expected, std::string_view path) {
    const ModelRoute& route = *expected.route;
    require(match.handlerId() == route.id, "offered route in model order");
    require(match.pattern() == route.pattern, "pattern as registered");
    require(match.parameterCount() == expected.values.size(), "parameter count");
    std::size_t index = 0;
    for (const auto& [kind, text] : route.segments) {
        if (kind != 'P') continue;
        const std::string_view value = match.parameter(index);
        require(value == expected.values[index], "parameter by index");
        require(value.data() >= path.data() && value.data() + value.size() <= path.data() + path.size(),
                "parameter points into the path");
        // The last parameter of a name wins, so only check names not used again later.
        bool reused = false;
        std::size_t later = 0;
        for (const auto& [otherKind, otherText] : route.segments) {
            if (otherKind != 'P') continue;
            if (later++ > index && otherText == text) reused = true;
        }
        if (!reused) require(match.parameter(text) == value, "parameter by name");
        ++index;
    }
    require(match.parameter(index).empty(), "parameter past the end is empty");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> lines;
    for (std::size_t begin = 0; begin <= input.size();) {
        std::size_t end = input.find('\n', begin);
        if (end == std::string_view::npos) end = input.size();
        lines.push_back(input.substr(begin, end - begin));
        begin = end + 1;
    }

    Router router;
    std::vector<ModelRoute> routes;
    std::size_t line = 0;
    for (; line < lines.size() && line < kMaxSetupLines && !lines[line].empty(); ++line) {
        std::string_view text = lines[line];
        const bool removal = text[0] == '-';
        if (removal) text.remove_prefix(1);
        const std::size_t space = text.find(' ');
        const std::string_view method = text.substr(0, space);
        const std::string_view pattern = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);

        ModelRoute candidate{std::string(method), std::string(pattern), {}, static_cast<Router::HandlerId>(line)};
        const bool wellFormed = !method.empty() && modelParse(pattern, candidate.segments);
        auto same = routes.end();
        if (wellFormed) {
            const std::string shape = shapeOf(candidate);
            same = std::find_if(routes.begin(), routes.end(), [&](const ModelRoute& r) { return shapeOf(r) == shape; });
        }
        if (removal) {
            const bool removed = router.remove(method, pattern);
            require(removed == (same != routes.end()), "remove() agrees with the model");
            if (removed) routes.erase(same);
        } else {
            const bool added = router.add(method, pattern, candidate.id);
            require(added == wellFormed, "add() accepts exactly the well-formed patterns");
            if (!added) continue;
            if (same != routes.end()) {
                *same = std::move(candidate);
            } else {
                routes.push_back(std::move(candidate));
            }
        }
    }
    if (line < lines.size() && lines[line].empty()) ++line;

    for (std::size_t requests = 0; line < lines.size() && requests < kMaxRequests; ++line, ++requests) {
        const std::string_view text = lines[line];
        const std::size_t space = text.find(' ');
        const std::string_view method = text.substr(0, space);
        const std::string_view path = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        const std::vector<Expected> expected = modelDispatch(routes, method, path);

        std::size_t offered = 0;
        const bool handled = router.dispatch(method, path, [&](const RouteMatch& match) {
            require(offered < expected.size(), "no more offers than matching routes");
            checkMatch(match, expected[offered], path);
            ++offered;
            return false;
        });
        require(!handled && offered == expected.size(), "every matching route offered once");

        // Accept the n-th offer: dispatch must stop right there and report success.
        const std::size_t acceptAt = path.size() % (expected.size() + 1);
        offered = 0;
        const bool accepted = router.dispatch(method, path, [&](const RouteMatch&) { return offered++ == acceptAt; });
        require(accepted == (acceptAt < expected.size()), "accepting reports handled");
        require(offered == std::min(acceptAt + 1, expected.size()), "dispatch stops at the accepting handler");
    }
    return 0;
}
