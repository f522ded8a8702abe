// Tests for core/http/Router: matching, priority, yield order, replacement, removal, malformed patterns, limits.
// The rules under test are written down in docs/decisions/router.md.
#include "http/Router.h"

#include "base/Check.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopwire {
namespace {

using Id = Router::HandlerId;
constexpr std::string_view kAny = Router::kAnyMethod;

// The handler id that accepts first, every handler accepting; nullopt for a 404.
std::optional<Id> route(Router& router, std::string_view method, std::string_view path) {
    std::optional<Id> accepted;
    router.dispatch(method, path, [&](const RouteMatch& match) {
        accepted = match.handlerId();
        return true;
    });
    return accepted;
}

// Every matching route in the order dispatch offers them, every handler declining.
std::vector<Id> yieldOrder(Router& router, std::string_view method, std::string_view path) {
    std::vector<Id> offered;
    const bool handled = router.dispatch(method, path, [&](const RouteMatch& match) {
        offered.push_back(match.handlerId());
        return false;
    });
    EXPECT_FALSE(handled);
    return offered;
}

// The parameters of the first match, by index.
std::vector<std::string> parameters(Router& router, std::string_view method, std::string_view path) {
    std::vector<std::string> values;
    router.dispatch(method, path, [&](const RouteMatch& match) {
        for (std::size_t i = 0; i < match.parameterCount(); ++i)
            values.emplace_back(match.parameter(i));
        return true;
    });
    return values;
}

TEST(Router, EmptyRouterMatchesNothing) {
    Router router;
    EXPECT_EQ(route(router, "GET", "/"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/a"), std::nullopt);
}

TEST(Router, StaticRouteMatchesOnlyItsExactPath) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/hello/world", 1));
    EXPECT_EQ(route(router, "GET", "/hello/world"), 1u);
    EXPECT_EQ(route(router, "GET", "/hello"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/hello/world/x"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/hello/worl"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/Hello/world"), std::nullopt);
}

TEST(Router, RootPatternMatchesOnlyRoot) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/", 1));
    EXPECT_EQ(route(router, "GET", "/"), 1u);
    EXPECT_EQ(route(router, "GET", "//"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/a"), std::nullopt);
}

TEST(Router, UnknownPathIsNotFound) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("GET", "/b/:x", 2));
    bool called = false;
    EXPECT_FALSE(router.dispatch("GET", "/c", [&](const RouteMatch&) { return called = true; }));
    EXPECT_FALSE(called);
}

TEST(Router, MatchReportsPatternAsRegistered) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/users/:id", 7));
    std::string pattern;
    router.dispatch("GET", "/users/42", [&](const RouteMatch& match) {
        pattern = match.pattern();
        return true;
    });
    EXPECT_EQ(pattern, "/users/:id");
}

TEST(Router, ParameterByIndexAndByName) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/users/:id", 1));
    bool called = false;
    router.dispatch("GET", "/users/42", [&](const RouteMatch& match) {
        called = true;
        EXPECT_EQ(match.parameterCount(), 1u);
        EXPECT_EQ(match.parameter(std::size_t{0}), "42");
        EXPECT_EQ(match.parameter("id"), "42");
        EXPECT_EQ(match.parameter(std::size_t{1}), "");
        EXPECT_EQ(match.parameter("name"), "");
        return true;
    });
    EXPECT_TRUE(called);
}

TEST(Router, SeveralParametersInPatternOrder) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/:org/repos/:repo/issues/:number", 1));
    bool called = false;
    router.dispatch("GET", "/acme/repos/rocket/issues/17", [&](const RouteMatch& match) {
        called = true;
        EXPECT_EQ(match.parameterCount(), 3u);
        EXPECT_EQ(match.parameter(std::size_t{0}), "acme");
        EXPECT_EQ(match.parameter(std::size_t{1}), "rocket");
        EXPECT_EQ(match.parameter(std::size_t{2}), "17");
        EXPECT_EQ(match.parameter("org"), "acme");
        EXPECT_EQ(match.parameter("repo"), "rocket");
        EXPECT_EQ(match.parameter("number"), "17");
        return true;
    });
    EXPECT_TRUE(called);
}

TEST(Router, ParameterDoesNotMatchAnEmptySegment) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/users/:id", 1));
    ASSERT_TRUE(router.add("GET", "/:a/x", 2));
    EXPECT_EQ(route(router, "GET", "/users/"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "//x"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/users/a/"), std::nullopt);
}

TEST(Router, ParameterIsTheRawSegment) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/f/:name", 1));
    EXPECT_EQ(parameters(router, "GET", "/f/a%2Fb%20c"), std::vector<std::string>{"a%2Fb%20c"});
    EXPECT_EQ(parameters(router, "GET", "/f/:x"), std::vector<std::string>{":x"});
    EXPECT_EQ(route(router, "GET", "/f/a/b"), std::nullopt);
}

TEST(Router, DuplicateParameterNameResolvesToTheLast) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/:x/:x", 1));
    std::string byName;
    router.dispatch("GET", "/first/second", [&](const RouteMatch& match) {
        byName = match.parameter("x");
        return true;
    });
    EXPECT_EQ(byName, "second");
}

TEST(Router, WildcardMatchesAnyNonEmptyRest) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/static/*", 1));
    EXPECT_EQ(route(router, "GET", "/static/app.js"), 1u);
    EXPECT_EQ(route(router, "GET", "/static/css/site.css"), 1u);
    EXPECT_EQ(route(router, "GET", "/static/"), 1u);
    EXPECT_EQ(route(router, "GET", "/static//"), 1u);
    EXPECT_EQ(route(router, "GET", "/static"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/staticx/a"), std::nullopt);
}

TEST(Router, RootWildcardMatchesEveryPath) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/*", 1));
    for (std::string_view path : {"/", "/a", "/a/b/c/", "//", "/a?b"}) {
        EXPECT_EQ(route(router, "GET", path), 1u) << path;
        EXPECT_EQ(route(router, "BREW", path), 1u) << path;
    }
}

// A tree whose root has only a wildcard below it takes a shortcut past the walk: declining still leaves the path
// unmatched, and a static or parameter route added beside it (then removed) is found before it.
TEST(Router, RootWildcardAloneDeclinesAndMakesWayForRoutesAddedBesideIt) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/*", 1));
    EXPECT_EQ(yieldOrder(router, "GET", "/"), std::vector<Id>{1});
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), std::vector<Id>{1});
    ASSERT_TRUE(router.add("GET", "/a/*", 2));
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), (std::vector<Id>{2, 1}));
    ASSERT_TRUE(router.add("GET", "/:p", 3));
    EXPECT_EQ(yieldOrder(router, "GET", "/b"), (std::vector<Id>{3, 1}));
    ASSERT_TRUE(router.remove("GET", "/a/*"));
    ASSERT_TRUE(router.remove("GET", "/:p"));
    EXPECT_EQ(yieldOrder(router, "GET", "/b"), std::vector<Id>{1});
    EXPECT_EQ(route(router, "POST", "/b"), std::nullopt);
}

// A method's tree is found by every byte of the method: names of 1 to 12 bytes that differ from a registered one
// in any single byte find nothing.
TEST(Router, MethodsDifferingInAnyOneByteAreDifferentMethods) {
    for (std::size_t length = 1; length <= 12; ++length) {
        Router router;
        const std::string method(length, 'M');
        ASSERT_TRUE(router.add(method, "/", 1));
        EXPECT_EQ(route(router, method, "/"), 1u) << method;
        for (std::size_t at = 0; at < length; ++at) {
            std::string other = method;
            other[at] = 'N';
            EXPECT_EQ(route(router, other, "/"), std::nullopt) << other;
        }
        EXPECT_EQ(route(router, method + "M", "/"), std::nullopt) << method;
    }
}

TEST(Router, WildcardCapturesNoParameter) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/u/:id/*", 1));
    EXPECT_EQ(parameters(router, "GET", "/u/7/files/a.txt"), std::vector<std::string>{"7"});
}

TEST(Router, StaticSegmentBeatsParameter) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/users/:id", 1));
    ASSERT_TRUE(router.add("GET", "/users/me", 2));
    EXPECT_EQ(route(router, "GET", "/users/me"), 2u);
    EXPECT_EQ(route(router, "GET", "/users/you"), 1u);
}

TEST(Router, ParameterBeatsWildcard) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/*", 1));
    ASSERT_TRUE(router.add("GET", "/a/:x", 2));
    EXPECT_EQ(route(router, "GET", "/a/b"), 2u);
    EXPECT_EQ(route(router, "GET", "/a/b/c"), 1u);
    EXPECT_EQ(route(router, "GET", "/a/"), 1u);
}

TEST(Router, PriorityIsDecidedAtTheFirstDifferingSegment) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/:a/b/c", 1));
    ASSERT_TRUE(router.add("GET", "/a/:b/:c", 2));
    ASSERT_TRUE(router.add("GET", "/a/*", 3));
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b/c"), (std::vector<Id>{2, 3, 1}));
}

TEST(Router, RegistrationOrderDoesNotMatter) {
    Router forward;
    Router backward;
    const std::vector<std::string> patterns = {"/a/b", "/a/:x", "/a/*", "/:y/b", "/*"};
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        ASSERT_TRUE(forward.add("GET", patterns[i], static_cast<Id>(i)));
        const std::size_t j = patterns.size() - 1 - i;
        ASSERT_TRUE(backward.add("GET", patterns[j], static_cast<Id>(j)));
    }
    EXPECT_EQ(yieldOrder(forward, "GET", "/a/b"), yieldOrder(backward, "GET", "/a/b"));
    EXPECT_EQ(yieldOrder(forward, "GET", "/a/b"), (std::vector<Id>{0, 1, 2, 3, 4}));
}

TEST(Router, MethodRoutesComeBeforeAnyMethodRoutesWhateverTheirShape) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/a/b", 1));
    ASSERT_TRUE(router.add("GET", "/*", 2));
    EXPECT_EQ(route(router, "GET", "/a/b"), 2u);
    EXPECT_EQ(route(router, "POST", "/a/b"), 1u);
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), (std::vector<Id>{2, 1}));
}

TEST(Router, AnyMethodRouteMatchesEveryMethod) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/x", 1));
    for (std::string_view method : {"GET", "POST", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "get"}) {
        EXPECT_EQ(route(router, method, "/x"), 1u) << method;
    }
}

TEST(Router, MethodIsMatchedExactlyAndCaseSensitively) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/x", 1));
    ASSERT_TRUE(router.add("POST", "/x", 2));
    ASSERT_TRUE(router.add("PROPFIND", "/x", 3));
    EXPECT_EQ(route(router, "GET", "/x"), 1u);
    EXPECT_EQ(route(router, "POST", "/x"), 2u);
    EXPECT_EQ(route(router, "PROPFIND", "/x"), 3u);
    EXPECT_EQ(route(router, "get", "/x"), std::nullopt);
    EXPECT_EQ(route(router, "Get", "/x"), std::nullopt);
    EXPECT_EQ(route(router, "GETX", "/x"), std::nullopt);
    EXPECT_EQ(route(router, "HEAD", "/x"), std::nullopt);
}

TEST(Router, AnyMethodTokenAsRequestMethodTriesAnyRoutesOnce) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/x", 1));
    ASSERT_TRUE(router.add("GET", "/x", 2));
    EXPECT_EQ(yieldOrder(router, "*", "/x"), (std::vector<Id>{1}));
}

TEST(Router, DispatchMethodOnlyLeavesTheAnyMethodRoutesOut) {
    Router router;
    ASSERT_TRUE(router.add("GET websocket", "/w", 1));
    ASSERT_TRUE(router.add(kAny, "/*", 2));
    std::vector<Id> offered;
    auto decline = [&](const RouteMatch& match) {
        offered.push_back(match.handlerId());
        return false;
    };
    EXPECT_FALSE(router.dispatchMethodOnly("GET websocket", "/w", decline));
    EXPECT_EQ(offered, std::vector<Id>{1});
    offered.clear();
    EXPECT_FALSE(router.dispatchMethodOnly("GET websocket", "/a", decline));
    EXPECT_TRUE(offered.empty());
    offered.clear();
    EXPECT_FALSE(router.dispatch("GET websocket", "/a", decline));
    EXPECT_EQ(offered, std::vector<Id>{2});
}

TEST(Router, HandledStopsDispatch) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/:x", 1));
    ASSERT_TRUE(router.add("GET", "/a/*", 2));
    ASSERT_TRUE(router.add(kAny, "/*", 3));
    std::vector<Id> offered;
    EXPECT_TRUE(router.dispatch("GET", "/a/b", [&](const RouteMatch& match) {
        offered.push_back(match.handlerId());
        return match.handlerId() == 2;
    }));
    EXPECT_EQ(offered, (std::vector<Id>{1, 2}));
}

TEST(Router, YieldFallsThroughInDocumentedOrder) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/*", 1));
    ASSERT_TRUE(router.add(kAny, "/a/b", 2));
    ASSERT_TRUE(router.add("GET", "/*", 3));
    ASSERT_TRUE(router.add("GET", "/a/*", 4));
    ASSERT_TRUE(router.add("GET", "/a/:x", 5));
    ASSERT_TRUE(router.add("GET", "/a/b", 6));
    ASSERT_TRUE(router.add("GET", "/:y/b", 7));
    ASSERT_TRUE(router.add("POST", "/a/b", 8));
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), (std::vector<Id>{6, 5, 4, 7, 3, 2, 1}));
    EXPECT_EQ(yieldOrder(router, "POST", "/a/b"), (std::vector<Id>{8, 2, 1}));
    EXPECT_EQ(yieldOrder(router, "PUT", "/a/b"), (std::vector<Id>{2, 1}));
}

TEST(Router, YieldBacktracksFromAStaticDeadEndIntoAParameter) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/b/d", 1));
    ASSERT_TRUE(router.add("GET", "/a/:x/c", 2));
    EXPECT_EQ(route(router, "GET", "/a/b/c"), 2u);
    EXPECT_EQ(parameters(router, "GET", "/a/b/c"), std::vector<std::string>{"b"});
    EXPECT_EQ(route(router, "GET", "/a/b/d"), 1u);
}

TEST(Router, ParametersAreRewrittenAfterBacktracking) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/:second", 1));
    ASSERT_TRUE(router.add("GET", "/:first/:second", 2));
    ASSERT_TRUE(router.add("GET", "/:first/*", 3));
    std::vector<std::vector<std::string>> seen;
    router.dispatch("GET", "/a/b", [&](const RouteMatch& match) {
        std::vector<std::string> values;
        for (std::size_t i = 0; i < match.parameterCount(); ++i)
            values.emplace_back(match.parameter(i));
        seen.push_back(values);
        return false;
    });
    const std::vector<std::vector<std::string>> expected = {{"b"}, {"a", "b"}, {"a"}};
    EXPECT_EQ(seen, expected);
}

TEST(Router, DecliningStaticRouteIsNotOfferedTwice) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("GET", "/:x", 2));
    ASSERT_TRUE(router.add("GET", "/*", 3));
    EXPECT_EQ(yieldOrder(router, "GET", "/a"), (std::vector<Id>{1, 2, 3}));
}

TEST(Router, TrailingSlashIsSignificant) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("GET", "/b/", 2));
    EXPECT_EQ(route(router, "GET", "/a"), 1u);
    EXPECT_EQ(route(router, "GET", "/a/"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/b/"), 2u);
    EXPECT_EQ(route(router, "GET", "/b"), std::nullopt);
    ASSERT_TRUE(router.add("GET", "/a/", 3));
    EXPECT_EQ(route(router, "GET", "/a/"), 3u);
    EXPECT_EQ(route(router, "GET", "/a"), 1u);
}

TEST(Router, EmptySegmentsAreMatchedLiterally) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a//b", 1));
    ASSERT_TRUE(router.add("GET", "/c/:x/", 2));
    EXPECT_EQ(route(router, "GET", "/a//b"), 1u);
    EXPECT_EQ(route(router, "GET", "/a/b"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/c/y/"), 2u);
    EXPECT_EQ(route(router, "GET", "/c/y"), std::nullopt);
}

TEST(Router, PathIsMatchedAsGivenSoTheQueryMustBeStrippedByTheCaller) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/search", 1));
    ASSERT_TRUE(router.add("GET", "/p/:q", 2));
    EXPECT_EQ(route(router, "GET", "/search"), 1u);
    EXPECT_EQ(route(router, "GET", "/search?q=1"), std::nullopt);
    EXPECT_EQ(parameters(router, "GET", "/p/x?y=1"), std::vector<std::string>{"x?y=1"});
}

TEST(Router, PathWithoutLeadingSlashMatchesNothing) {
    Router router;
    ASSERT_TRUE(router.add(kAny, "/*", 1));
    ASSERT_TRUE(router.add(kAny, "/", 2));
    EXPECT_EQ(route(router, "OPTIONS", "*"), std::nullopt);
    EXPECT_EQ(route(router, "GET", ""), std::nullopt);
    EXPECT_EQ(route(router, "GET", "http://example.com/a"), std::nullopt);
}

TEST(Router, SameMethodAndPatternReplacesTheHandler) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("GET", "/a", 2));
    ASSERT_TRUE(router.add("GET", "/b/:x", 3));
    ASSERT_TRUE(router.add("GET", "/b/:x", 4));
    ASSERT_TRUE(router.add(kAny, "/*", 5));
    ASSERT_TRUE(router.add(kAny, "/*", 6));
    EXPECT_EQ(yieldOrder(router, "GET", "/a"), (std::vector<Id>{2, 6}));
    EXPECT_EQ(yieldOrder(router, "GET", "/b/c"), (std::vector<Id>{4, 6}));
}

TEST(Router, ReplacingALongStaticRouteKeepsItAndItsNeighboursFindable) {
    // Regression (found by router_fuzzer): the exact-match index viewed the replaced pattern string after it
    // had been freed. Patterns longer than the small-string buffer make that visible to ASan.
    Router router;
    const std::string longA = "/assets/javascript/application-bundle.js";
    const std::string longB = "/assets/javascript/application-bundle.css";
    const std::string longC = "/assets/javascript/application-bundle.map";
    ASSERT_TRUE(router.add("GET", longA, 1));
    ASSERT_TRUE(router.add("GET", longB, 2));
    ASSERT_TRUE(router.add("GET", longA, 3));
    ASSERT_TRUE(router.add("GET", longC, 4));
    ASSERT_TRUE(router.add("GET", longB, 5));
    EXPECT_EQ(route(router, "GET", longA), 3u);
    EXPECT_EQ(route(router, "GET", longB), 5u);
    EXPECT_EQ(route(router, "GET", longC), 4u);
    EXPECT_TRUE(router.remove("GET", longA));
    EXPECT_EQ(route(router, "GET", longA), std::nullopt);
    EXPECT_EQ(route(router, "GET", longB), 5u);
}

TEST(Router, PatternsDifferingOnlyInParameterNamesAreOneRoute) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/u/:id", 1));
    ASSERT_TRUE(router.add("GET", "/u/:name", 2));
    std::vector<Id> offered;
    router.dispatch("GET", "/u/bob", [&](const RouteMatch& match) {
        offered.push_back(match.handlerId());
        EXPECT_EQ(match.pattern(), "/u/:name");
        EXPECT_EQ(match.parameter("name"), "bob");
        EXPECT_EQ(match.parameter("id"), "");
        return false;
    });
    EXPECT_EQ(offered, (std::vector<Id>{2}));
}

TEST(Router, SamePatternUnderDifferentMethodsIsDistinct) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("POST", "/a", 2));
    ASSERT_TRUE(router.add(kAny, "/a", 3));
    EXPECT_EQ(yieldOrder(router, "GET", "/a"), (std::vector<Id>{1, 3}));
    EXPECT_EQ(yieldOrder(router, "POST", "/a"), (std::vector<Id>{2, 3}));
}

TEST(Router, RemoveDeletesOnlyThatRoute) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/b", 1));
    ASSERT_TRUE(router.add("GET", "/a/c", 2));
    ASSERT_TRUE(router.add("GET", "/a/:x", 3));
    ASSERT_TRUE(router.add(kAny, "/a/b", 4));
    EXPECT_TRUE(router.remove("GET", "/a/b"));
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), (std::vector<Id>{3, 4}));
    EXPECT_EQ(route(router, "GET", "/a/c"), 2u);
    EXPECT_TRUE(router.remove("GET", "/a/:x"));
    EXPECT_EQ(yieldOrder(router, "GET", "/a/b"), (std::vector<Id>{4}));
    EXPECT_EQ(route(router, "GET", "/a/c"), 2u);
    EXPECT_TRUE(router.remove("GET", "/a/c"));
    EXPECT_EQ(route(router, "GET", "/a/c"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/a/b"), 4u);
    EXPECT_TRUE(router.remove(kAny, "/a/b"));
    EXPECT_EQ(route(router, "GET", "/a/b"), std::nullopt);
}

TEST(Router, RemoveOfAbsentRouteReturnsFalse) {
    Router router;
    EXPECT_FALSE(router.remove("GET", "/a"));
    ASSERT_TRUE(router.add("GET", "/a/b", 1));
    ASSERT_TRUE(router.add("GET", "/w/*", 2));
    EXPECT_FALSE(router.remove("POST", "/a/b"));
    EXPECT_FALSE(router.remove(kAny, "/a/b"));
    EXPECT_FALSE(router.remove("GET", "/a"));
    EXPECT_FALSE(router.remove("GET", "/a/b/c"));
    EXPECT_FALSE(router.remove("GET", "/a/:b"));
    EXPECT_FALSE(router.remove("GET", "/w"));
    EXPECT_FALSE(router.remove("GET", "/w/x"));
    EXPECT_FALSE(router.remove("GET", "a/b"));
    EXPECT_FALSE(router.remove("", "/a/b"));
    EXPECT_TRUE(router.remove("GET", "/a/b"));
    EXPECT_FALSE(router.remove("GET", "/a/b"));
    EXPECT_EQ(route(router, "GET", "/w/x"), 2u);
}

TEST(Router, FindGivesTheHandlerOfExactlyThatMethodAndPattern) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/u/:id/posts", 1));
    ASSERT_TRUE(router.add(kAny, "/w/*", 2));
    ASSERT_TRUE(router.add("GET", "/w/*", 3));
    Router::HandlerId id = 0;
    EXPECT_TRUE(router.find("GET", "/u/:other/posts", id));
    EXPECT_EQ(id, 1u);
    EXPECT_TRUE(router.find(kAny, "/w/*", id));
    EXPECT_EQ(id, 2u);
    EXPECT_TRUE(router.find("GET", "/w/*", id));
    EXPECT_EQ(id, 3u);
    EXPECT_FALSE(router.find("POST", "/w/*", id));
    EXPECT_FALSE(router.find("GET", "/u/:id", id));
    EXPECT_FALSE(router.find("GET", "/w", id));
    EXPECT_FALSE(router.find("GET", "w/*", id));
    ASSERT_TRUE(router.remove("GET", "/w/*"));
    EXPECT_FALSE(router.find("GET", "/w/*", id));
}

TEST(Router, RemoveIgnoresParameterNames) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/u/:id/posts", 1));
    EXPECT_TRUE(router.remove("GET", "/u/:other/posts"));
    EXPECT_EQ(route(router, "GET", "/u/1/posts"), std::nullopt);
}

TEST(Router, RemovedRouteCanBeAddedAgain) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a/:x", 1));
    ASSERT_TRUE(router.add("GET", "/a", 2));
    ASSERT_TRUE(router.remove("GET", "/a/:x"));
    ASSERT_TRUE(router.remove("GET", "/a"));
    EXPECT_EQ(route(router, "GET", "/a"), std::nullopt);
    ASSERT_TRUE(router.add("GET", "/a/:y", 3));
    ASSERT_TRUE(router.add("GET", "/a", 4));
    EXPECT_EQ(route(router, "GET", "/a/q"), 3u);
    EXPECT_EQ(route(router, "GET", "/a"), 4u);
}

TEST(Router, RemovingAnInnerRouteKeepsDeeperRoutes) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    ASSERT_TRUE(router.add("GET", "/a/b", 2));
    ASSERT_TRUE(router.add("GET", "/a/:x/c", 3));
    ASSERT_TRUE(router.remove("GET", "/a"));
    EXPECT_EQ(route(router, "GET", "/a"), std::nullopt);
    EXPECT_EQ(route(router, "GET", "/a/b"), 2u);
    EXPECT_EQ(route(router, "GET", "/a/z/c"), 3u);
}

TEST(Router, MalformedPatternsAreRefusedAndChangeNothing) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/ok", 1));
    for (std::string_view pattern : {"", "a", "ok", "*", ":x", "/:", "/a/:", "/a/:/b", "/*/a", "/a/*/", "/a*", "/*a",
                                     "/a/b*c", "/a/:x*", "/**", "/a/**"}) {
        EXPECT_FALSE(router.add("GET", pattern, 9)) << pattern;
        EXPECT_FALSE(router.add(kAny, pattern, 9)) << pattern;
        EXPECT_FALSE(router.remove("GET", pattern)) << pattern;
    }
    EXPECT_FALSE(router.add("", "/ok", 9));
    EXPECT_EQ(yieldOrder(router, "GET", "/ok"), (std::vector<Id>{1}));
    EXPECT_EQ(route(router, "GET", "/a"), std::nullopt);
}

TEST(Router, ColonInsideASegmentIsStatic) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a:b", 1));
    ASSERT_TRUE(router.add("GET", "/x/::y", 2));
    EXPECT_EQ(route(router, "GET", "/a:b"), 1u);
    EXPECT_EQ(route(router, "GET", "/aXb"), std::nullopt);
    std::string value;
    router.dispatch("GET", "/x/v", [&](const RouteMatch& match) {
        value = match.parameter(":y");
        return true;
    });
    EXPECT_EQ(value, "v");
}

std::string patternWithParameters(std::size_t count) {
    std::string pattern;
    for (std::size_t i = 0; i < count; ++i)
        pattern += "/:p" + std::to_string(i);
    return pattern;
}

std::string pathWithSegments(std::size_t count) {
    std::string path;
    for (std::size_t i = 0; i < count; ++i)
        path += "/v" + std::to_string(i);
    return path;
}

TEST(Router, AcceptsTheMaximumNumberOfParameters) {
    Router router;
    constexpr std::size_t kMax = limits::kMaxRouteParameters;
    ASSERT_TRUE(router.add("GET", patternWithParameters(kMax), 1));
    bool called = false;
    router.dispatch("GET", pathWithSegments(kMax), [&](const RouteMatch& match) {
        called = true;
        EXPECT_EQ(match.parameterCount(), kMax);
        EXPECT_EQ(match.parameter(kMax - 1), "v" + std::to_string(kMax - 1));
        EXPECT_EQ(match.parameter("p" + std::to_string(kMax - 1)), "v" + std::to_string(kMax - 1));
        return true;
    });
    EXPECT_TRUE(called);
}

TEST(Router, RefusesOneParameterMoreThanTheMaximum) {
    Router router;
    constexpr std::size_t kMax = limits::kMaxRouteParameters;
    EXPECT_FALSE(router.add("GET", patternWithParameters(kMax + 1), 1));
    EXPECT_FALSE(router.add("GET", patternWithParameters(kMax) + "/static/:one", 1));
    EXPECT_TRUE(router.add("GET", patternWithParameters(kMax) + "/static/*", 1));
    EXPECT_EQ(route(router, "GET", pathWithSegments(kMax + 1)), std::nullopt);
}

TEST(Router, ParameterLimitHoldsAcrossPatternsSharingNodes) {
    // Two maximal patterns sharing a prefix: the walk never holds more parameters than one pattern has.
    Router router;
    constexpr std::size_t kMax = limits::kMaxRouteParameters;
    ASSERT_TRUE(router.add("GET", patternWithParameters(kMax), 1));
    ASSERT_TRUE(router.add("GET", patternWithParameters(kMax - 1) + "/s", 2));
    ASSERT_TRUE(router.add("GET", patternWithParameters(kMax) + "/*", 3));
    EXPECT_EQ(yieldOrder(router, "GET", pathWithSegments(kMax - 1) + "/s"), (std::vector<Id>{2, 1}));
    EXPECT_EQ(yieldOrder(router, "GET", pathWithSegments(kMax) + "/t"), (std::vector<Id>{3}));
}

TEST(Router, ManyRoutes) {
    Router router;
    constexpr Id kCount = 2000;
    for (Id i = 0; i < kCount; ++i) {
        const std::string n = std::to_string(i);
        ASSERT_TRUE(router.add("GET", "/static/" + n, i));
        ASSERT_TRUE(router.add("GET", "/param/" + n + "/:id", kCount + i));
        ASSERT_TRUE(router.add(i % 2 ? "POST" : "PUT", "/m/" + n, 2 * kCount + i));
    }
    for (Id i = 0; i < kCount; ++i) {
        const std::string n = std::to_string(i);
        EXPECT_EQ(route(router, "GET", "/static/" + n), i);
        EXPECT_EQ(route(router, "GET", "/param/" + n + "/x"), kCount + i);
        EXPECT_EQ(route(router, i % 2 ? "POST" : "PUT", "/m/" + n), 2 * kCount + i);
        EXPECT_EQ(route(router, i % 2 ? "PUT" : "POST", "/m/" + n), std::nullopt);
    }
    EXPECT_EQ(route(router, "GET", "/static/" + std::to_string(kCount)), std::nullopt);
    for (Id i = 0; i < kCount; i += 2)
        ASSERT_TRUE(router.remove("GET", "/static/" + std::to_string(i)));
    for (Id i = 0; i < kCount; ++i) {
        EXPECT_EQ(route(router, "GET", "/static/" + std::to_string(i)), i % 2 ? std::optional<Id>(i) : std::nullopt);
    }
}

TEST(Router, DeepPatternsAndLongPathsNeedNoDeepRecursion) {
    Router router;
    std::string deep;
    for (int i = 0; i < 5000; ++i)
        deep += "/s";
    ASSERT_TRUE(router.add("GET", deep + "/:last", 1));
    ASSERT_TRUE(router.add("GET", "/s/*", 2));
    EXPECT_EQ(route(router, "GET", deep + "/end"), 1u);
    std::string longPath;
    for (int i = 0; i < 200000; ++i)
        longPath += "/s";
    EXPECT_EQ(yieldOrder(router, "GET", longPath), (std::vector<Id>{2}));
    EXPECT_EQ(yieldOrder(router, "POST", longPath), std::vector<Id>{});
}

TEST(Router, AcceptsConstAndMoveOnlyCallables) {
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    const auto accept = [](const RouteMatch& match) { return match.handlerId() == 1; };
    EXPECT_TRUE(router.dispatch("GET", "/a", accept));
    auto owned = std::make_unique<int>(1);
    EXPECT_TRUE(router.dispatch("GET", "/a", [p = std::move(owned)](const RouteMatch&) { return *p == 1; }));
}

#if LW_CHECKS_ENABLED
TEST(RouterDeathTest, ChangingRoutesDuringDispatchIsCaught) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Router router;
    ASSERT_TRUE(router.add("GET", "/a", 1));
    EXPECT_DEATH(router.dispatch("GET", "/a",
                                 [&](const RouteMatch&) {
                                     router.add("GET", "/b", 2);
                                     return true;
                                 }),
                 "dispatching_");
    EXPECT_DEATH(router.dispatch("GET", "/a",
                                 [&](const RouteMatch&) {
                                     return router.dispatch("GET", "/a", [](const RouteMatch&) { return true; });
                                 }),
                 "dispatching_");
}
#endif

}  // namespace
}  // namespace loopwire
