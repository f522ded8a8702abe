// The router keeps one tree per method plus one for kAnyMethod. Each node is one pattern segment; its children
// are split by kind so that the walk can try them in priority order without sorting or scanning for kind:
// static children (sorted, binary searched), then at most one parameter child, then at most one wildcard child.
// The rules, and how they relate to uWebSockets v20, are in docs/decisions/router.md.
#include "Router.h"

#include "../base/Check.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace loopwire {

namespace {

enum class SegmentKind : std::uint8_t { Static, Parameter, Wildcard };

struct PatternSegment {
    SegmentKind kind;
    std::string_view text;  // the static text, or the parameter's name without ':'
};

// The sorted indexes (static children of a node, static routes of a tree) need some total order, not the
// alphabetical one. This one compares lengths first, which settles most comparisons of different strings, then
// the bytes eight (or four, or two) at a time as native integers: for the short strings routed here that is
// several times fewer instructions than a call to memcmp. Loads at both ends of a tail may overlap; for strings
// of one length the sequence of loaded words still determines the string, so the order stays total.
template <typename Word>
inline Word load(const char* bytes) noexcept {
    Word word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

inline int compareWords(std::uint64_t a, std::uint64_t b) noexcept { return a == b ? 0 : (a < b ? -1 : 1); }

inline int compareSameLength(const char* a, const char* b, std::size_t length) noexcept {
    std::size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        if (int order = compareWords(load<std::uint64_t>(a + i), load<std::uint64_t>(b + i))) return order;
    }
    const std::size_t tail = length - i;
    if (tail == 0) return 0;
    if (length >= 8) {
        return compareWords(load<std::uint64_t>(a + length - 8), load<std::uint64_t>(b + length - 8));
    }
    a += i;
    b += i;
    if (tail >= 4) {
        const std::uint64_t x = load<std::uint32_t>(a) | std::uint64_t{load<std::uint32_t>(a + tail - 4)} << 32;
        const std::uint64_t y = load<std::uint32_t>(b) | std::uint64_t{load<std::uint32_t>(b + tail - 4)} << 32;
        return compareWords(x, y);
    }
    if (tail >= 2) {
        const std::uint64_t x = load<std::uint16_t>(a) | std::uint64_t{load<std::uint16_t>(a + tail - 2)} << 16;
        const std::uint64_t y = load<std::uint16_t>(b) | std::uint64_t{load<std::uint16_t>(b + tail - 2)} << 16;
        return compareWords(x, y);
    }
    return compareWords(static_cast<unsigned char>(*a), static_cast<unsigned char>(*b));
}

inline int compareKeys(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return compareSameLength(a.data(), b.data(), a.size());
}

// Equality alone, for the method lookup on every dispatch: the same overlapping loads as compareSameLength, XORed
// and ORed together, with no order to find.
inline bool sameBytes(std::string_view a, std::string_view b) noexcept {
    const std::size_t length = a.size();
    if (length != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    if (length >= 8) return compareSameLength(x, y, length) == 0;
    if (length >= 4) {
        return ((load<std::uint32_t>(x) ^ load<std::uint32_t>(y)) |
                (load<std::uint32_t>(x + length - 4) ^ load<std::uint32_t>(y + length - 4))) == 0;
    }
    if (length >= 2) {
        return ((load<std::uint16_t>(x) ^ load<std::uint16_t>(y)) |
                (load<std::uint16_t>(x + length - 2) ^ load<std::uint16_t>(y + length - 2))) == 0;
    }
    return length == 0 || *x == *y;
}

// Index of the entry whose key equals key, or of the place to insert it; found tells which. Entries are sorted
// by compareKeys of keyOf(entry).
template <typename Entry, typename KeyOf>
std::size_t search(const std::vector<Entry>& entries, std::string_view key, KeyOf keyOf, bool& found) noexcept {
    std::size_t low = 0;
    std::size_t high = entries.size();
    while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        const int order = compareKeys(keyOf(entries[middle]), key);
        if (order == 0) {
            found = true;
            return middle;
        }
        if (order < 0) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    found = false;
    return low;
}

bool parsePattern(std::string_view pattern, std::vector<PatternSegment>& segments) {
    if (pattern.empty() || pattern.front() != '/') return false;
    std::size_t parameters = 0;
    std::size_t begin = 1;
    for (;;) {
        std::size_t end = pattern.find('/', begin);
        const bool last = end == std::string_view::npos;
        if (last) end = pattern.size();
        const std::string_view text = pattern.substr(begin, end - begin);
        if (text == "*") {
            if (!last) return false;
            segments.push_back({SegmentKind::Wildcard, {}});
        } else if (text.find('*') != std::string_view::npos) {
            return false;
        } else if (!text.empty() && text.front() == ':') {
            if (text.size() == 1 || ++parameters > limits::kMaxRouteParameters) return false;
            segments.push_back({SegmentKind::Parameter, text.substr(1)});
        } else {
            segments.push_back({SegmentKind::Static, text});
        }
        if (last) return true;
        begin = end + 1;
    }
}

bool isDynamic(const std::vector<PatternSegment>& segments) noexcept {
    return std::any_of(segments.begin(), segments.end(),
                       [](const PatternSegment& segment) { return segment.kind != SegmentKind::Static; });
}

}  // namespace

std::string_view RouteMatch::parameter(std::size_t index) const noexcept {
    return index < parameterCount_ ? parameters_[index] : std::string_view();
}

std::string_view RouteMatch::parameter(std::string_view name) const noexcept {
    // Scanning from the end makes the last of two equal names win, as uWebSockets' name-to-offset map does.
    for (std::size_t i = parameterCount_; i-- > 0;) {
        if (parameterNames_[i] == name) return parameters_[i];
    }
    return {};
}

struct Router::Node {
    struct StaticChild {
        std::string_view text;  // views node->text, which never changes after creation
        std::unique_ptr<Node> node;
    };

    std::string text;                  // the segment a static node matches; empty for parameter and wildcard nodes
    std::vector<StaticChild> statics;  // sorted by compareKeys of text
    std::unique_ptr<Node> parameter;
    std::unique_ptr<Node> wildcard;

    bool hasRoute = false;
    HandlerId id = 0;
    std::string pattern;
    std::vector<std::string> parameterNames;

    std::size_t searchStatic(std::string_view segment, bool& found) const noexcept {
        return search(
            statics, segment, [](const StaticChild& child) { return child.text; }, found);
    }

    Node* findStatic(std::string_view segment) const noexcept {
        bool found;
        const std::size_t index = searchStatic(segment, found);
        return found ? statics[index].node.get() : nullptr;
    }

    Node* find(const PatternSegment& segment) const noexcept {
        switch (segment.kind) {
            case SegmentKind::Static:
                return findStatic(segment.text);
            case SegmentKind::Parameter:
                return parameter.get();
            case SegmentKind::Wildcard:
                return wildcard.get();
        }
        return nullptr;
    }

    Node* obtain(const PatternSegment& segment) {
        if (Node* existing = find(segment)) return existing;
        auto child = std::make_unique<Node>();
        Node* raw = child.get();
        switch (segment.kind) {
            case SegmentKind::Static: {
                child->text = segment.text;
                bool found;
                const std::size_t index = searchStatic(segment.text, found);
                statics.insert(statics.begin() + static_cast<std::ptrdiff_t>(index),
                               StaticChild{raw->text, std::move(child)});
                break;
            }
            case SegmentKind::Parameter:
                parameter = std::move(child);
                break;
            case SegmentKind::Wildcard:
                wildcard = std::move(child);
                break;
        }
        return raw;
    }

    void detach(const Node* child) {
        if (parameter.get() == child) {
            parameter.reset();
        } else if (wildcard.get() == child) {
            wildcard.reset();
        } else {
            bool found;
            const std::size_t index = searchStatic(child->text, found);
            LW_CHECK(found && statics[index].node.get() == child);
            statics.erase(statics.begin() + static_cast<std::ptrdiff_t>(index));
        }
    }

    bool empty() const noexcept { return !hasRoute && statics.empty() && !parameter && !wildcard; }
};

struct Router::Tree {
    struct ExactEntry {
        std::string_view pattern;  // views node->pattern, and is refreshed whenever that string is reassigned
        const Node* node;
    };

    std::string method;
    Node root;
    // Every fully static route of this tree, sorted by compareKeys of its pattern. Such a route is always the
    // first match of its own path (see dispatchTree), so an exact lookup can answer before the walk.
    std::vector<ExactEntry> exact;
    std::size_t dynamicRoutes = 0;  // routes with a parameter or a wildcard, which only the walk finds

    std::size_t searchExact(std::string_view path, bool& found) const noexcept {
        return search(
            exact, path, [](const ExactEntry& entry) { return entry.pattern; }, found);
    }

    const Node* findExact(std::string_view path) const noexcept {
        bool found;
        const std::size_t index = searchExact(path, found);
        return found ? exact[index].node : nullptr;
    }
};

struct Router::Frame {
    enum Next : std::uint8_t { kStatic, kParameter, kWildcard, kDone };
    const Node* node;
    std::size_t restBegin;   // where the unmatched rest of the path begins: on a '/', or at the path's end
    std::size_t segmentEnd;  // where the segment after restBegin ends; set when the static child is tried
    std::size_t parameterCount;
    Next next;
};

Router::Router() : anyTree_(std::make_unique<Tree>()), frames_(1) { anyTree_->method = kAnyMethod; }

Router::~Router() = default;

Router::Tree* Router::findTree(std::string_view method) const noexcept {
    for (const auto& tree : methodTrees_) {
        if (sameBytes(tree->method, method)) return tree.get();
    }
    return nullptr;
}

bool Router::add(std::string_view method, std::string_view pattern, HandlerId id) {
    LW_CHECK(!dispatching_);
    std::vector<PatternSegment> segments;
    if (method.empty() || !parsePattern(pattern, segments)) return false;

    std::vector<std::string> names;
    for (const PatternSegment& segment : segments) {
        if (segment.kind == SegmentKind::Parameter) names.emplace_back(segment.text);
    }
    std::string patternCopy(pattern);
    if (frames_.size() < segments.size() + 1) frames_.resize(segments.size() + 1);

    Tree* tree = method == kAnyMethod ? anyTree_.get() : findTree(method);
    if (!tree) {
        auto fresh = std::make_unique<Tree>();
        fresh->method = method;
        // GET is by far the most common method, so its tree is scanned first.
        auto position = method == "GET" ? methodTrees_.begin() : methodTrees_.end();
        tree = methodTrees_.insert(position, std::move(fresh))->get();
    }

    Node* node = &tree->root;
    for (const PatternSegment& segment : segments)
        node = node->obtain(segment);

    const bool replacing = node->hasRoute;
    const bool dynamic = isDynamic(segments);
    // The index views the patterns it holds, so it is searched before node->pattern is reassigned (which may
    // free the string a view points into) and refreshed after. A static pattern is its own shape, so a
    // replacement keeps its place.
    bool found = false;
    std::size_t index = 0;
    if (!dynamic) {
        index = tree->searchExact(pattern, found);
        LW_CHECK(found == replacing);
        if (!replacing) tree->exact.reserve(tree->exact.size() + 1);
    }
    node->hasRoute = true;
    node->id = id;
    node->pattern = std::move(patternCopy);
    node->parameterNames = std::move(names);
    if (dynamic) {
        if (!replacing) ++tree->dynamicRoutes;
    } else if (replacing) {
        LW_CHECK(tree->exact[index].node == node);
        tree->exact[index].pattern = node->pattern;
    } else {
        tree->exact.insert(tree->exact.begin() + static_cast<std::ptrdiff_t>(index), {node->pattern, node});
    }
    return true;
}

bool Router::find(std::string_view method, std::string_view pattern, HandlerId& id) const {
    std::vector<PatternSegment> segments;
    if (method.empty() || !parsePattern(pattern, segments)) return false;
    const Tree* tree = method == kAnyMethod ? anyTree_.get() : findTree(method);
    if (!tree) return false;
    const Node* node = &tree->root;
    for (const PatternSegment& segment : segments) {
        node = node->find(segment);
        if (!node) return false;
    }
    if (!node->hasRoute) return false;
    id = node->id;
    return true;
}

bool Router::remove(std::string_view method, std::string_view pattern) {
    LW_CHECK(!dispatching_);
    std::vector<PatternSegment> segments;
    if (method.empty() || !parsePattern(pattern, segments)) return false;
    Tree* tree = method == kAnyMethod ? anyTree_.get() : findTree(method);
    if (!tree) return false;

    std::vector<Node*> chain{&tree->root};
    for (const PatternSegment& segment : segments) {
        Node* child = chain.back()->find(segment);
        if (!child) return false;
        chain.push_back(child);
    }
    Node* target = chain.back();
    if (!target->hasRoute) return false;

    if (isDynamic(segments)) {
        --tree->dynamicRoutes;
    } else {
        bool found;
        const std::size_t index = tree->searchExact(target->pattern, found);
        LW_CHECK(found && tree->exact[index].node == target);
        tree->exact.erase(tree->exact.begin() + static_cast<std::ptrdiff_t>(index));
    }
    target->hasRoute = false;
    target->id = 0;
    target->pattern.clear();
    target->parameterNames.clear();

    // Nodes that no longer lead to a route are pruned, so the walk never wanders into dead branches.
    for (std::size_t i = chain.size() - 1; i > 0 && chain[i]->empty(); --i)
        chain[i - 1]->detach(chain[i]);
    if (tree != anyTree_.get() && tree->root.empty()) {
        methodTrees_.erase(std::find_if(methodTrees_.begin(), methodTrees_.end(),
                                        [tree](const std::unique_ptr<Tree>& each) { return each.get() == tree; }));
    }
    return true;
}

namespace {

class DispatchGuard {
public:
    explicit DispatchGuard(bool& flag) noexcept : flag_(flag) { flag_ = true; }
    ~DispatchGuard() { flag_ = false; }
    DispatchGuard(const DispatchGuard&) = delete;
    DispatchGuard& operator=(const DispatchGuard&) = delete;

private:
    bool& flag_;
};

}  // namespace

bool Router::dispatchImpl(std::string_view method, std::string_view path, Visitor visitor, bool tryAnyMethod) {
    LW_CHECK(!dispatching_);
    // Only origin-form paths are routed; "*" and absolute-form targets are the connection's business.
    if (path.empty() || path.front() != '/') return false;
    DispatchGuard guard(dispatching_);
    if (method != kAnyMethod) {
        const Tree* tree = findTree(method);
        if (tree && dispatchTree(*tree, path, visitor)) return true;
    }
    return tryAnyMethod && dispatchTree(*anyTree_, path, visitor);
}

bool Router::dispatchTree(const Tree& tree, std::string_view path, Visitor visitor) {
    // A fully static route equal to the path is the walk's first match: at every level the walk tries the
    // static child before the parameter and the wildcard, and that route's chain of static nodes is exactly
    // the path. So it can be offered first, and the walk, if it runs at all, only has to skip it.
    const Node* exact = tree.exact.empty() ? nullptr : tree.findExact(path);
    if (exact && offer(*exact, 0, visitor)) return true;
    if (tree.dynamicRoutes == 0) return false;
    // A root with only a wildcard below it ("/*", an app's catch-all) is the walk's first and only candidate for
    // every path: the path starts with '/', so the rest after the root is never empty.
    const Node& root = tree.root;
    if (root.statics.empty() && !root.parameter) return root.wildcard && offer(*root.wildcard, 0, visitor);
    return walk(tree, path, exact, visitor);
}

bool Router::walk(const Tree& tree, std::string_view path, const Node* skip, Visitor visitor) {
    // A depth-first walk with an explicit stack, backtracking into the next candidate whenever a subtree is
    // exhausted or its handlers declined. The stack never grows: every frame is a node of the tree, and add()
    // sized frames_ to the deepest pattern.
    Frame* const frames = frames_.data();
    std::size_t depth = 0;
    frames[0] = {&tree.root, 0, 0, 0, Frame::kStatic};
    for (;;) {
        Frame& frame = frames[depth];
        const Node& node = *frame.node;
        if (frame.restBegin == path.size()) {
            if (node.hasRoute && &node != skip && offer(node, frame.parameterCount, visitor)) return true;
        } else {
            const std::size_t segmentBegin = frame.restBegin + 1;
            switch (frame.next) {
                case Frame::kStatic: {
                    frame.next = Frame::kParameter;
                    // A node with only a wildcard below it (a catch-all) needs no segment boundary at all.
                    if (node.statics.empty() && !node.parameter) {
                        frame.next = Frame::kDone;
                        if (node.wildcard && offer(*node.wildcard, frame.parameterCount, visitor)) return true;
                        break;
                    }
                    std::size_t end = path.find('/', segmentBegin);
                    if (end == std::string_view::npos) end = path.size();
                    frame.segmentEnd = end;
                    const Node* child = node.findStatic({path.data() + segmentBegin, end - segmentBegin});
                    if (child) {
                        LW_CHECK(depth + 1 < frames_.size());
                        frames[++depth] = {child, frame.segmentEnd, 0, frame.parameterCount, Frame::kStatic};
                        continue;
                    }
                    [[fallthrough]];
                }
                case Frame::kParameter:
                    frame.next = Frame::kWildcard;
                    if (node.parameter && frame.segmentEnd > segmentBegin) {
                        LW_CHECK(depth + 1 < frames_.size());
                        LW_CHECK(frame.parameterCount < limits::kMaxRouteParameters);
                        scratch_.parameters_[frame.parameterCount] = {path.data() + segmentBegin,
                                                                      frame.segmentEnd - segmentBegin};
                        frames[++depth] = {node.parameter.get(), frame.segmentEnd, 0, frame.parameterCount + 1,
                                           Frame::kStatic};
                        continue;
                    }
                    [[fallthrough]];
                case Frame::kWildcard:
                    frame.next = Frame::kDone;
                    if (node.wildcard && offer(*node.wildcard, frame.parameterCount, visitor)) return true;
                    break;
                case Frame::kDone:
                    break;
            }
        }
        if (depth == 0) return false;
        --depth;
    }
}

bool Router::offer(const Node& node, std::size_t parameterCount, Visitor visitor) {
    // Every node sits on the chain of some registered pattern, so the parameters met on the way to a route are
    // exactly that route's parameters.
    LW_CHECK(parameterCount == node.parameterNames.size());
    scratch_.handlerId_ = node.id;
    scratch_.parameterCount_ = parameterCount;
    scratch_.pattern_ = node.pattern;
    scratch_.parameterNames_ = node.parameterNames.data();
    return visitor.call(visitor.context, scratch_);
}

}  // namespace loopwire
