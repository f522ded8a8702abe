// FileCache: the entries (CachedFile) of one static mount, by decoded relative path, least recently used first out
// once their bytes pass the bound.
//
// find() marks an entry used and allocates nothing (the hot path: a cached file, a 304). insert() allocates (a map
// node and a list node) and evicts least recently used entries until the total is within maxBytes again; an entry
// larger than the bound on its own is not kept, and evicts nothing. An evicted entry lives on for as long as a
// response holds it. Loop thread only.
#pragma once

#include "CachedFile.h"

#include <cstddef>
#include <list>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace loopwire::files {

class FileCache {
public:
    explicit FileCache(std::size_t maxBytes) noexcept : maxBytes_(maxBytes) {}

    // The entry for key, or null.
    const std::shared_ptr<CachedFile>* find(std::string_view key) noexcept;
    // Adds entry, replacing one with the same key. An entry larger than the bound on its own only removes the one it
    // replaces and is not kept (the caller still holds it).
    void insert(const std::shared_ptr<CachedFile>& entry);
    void erase(std::string_view key) noexcept;
    void clear() noexcept;

    std::size_t size() const noexcept { return byKey_.size(); }
    std::size_t chargedBytes() const noexcept { return chargedBytes_; }
    std::size_t maxBytes() const noexcept { return maxBytes_; }

private:
    using Order = std::list<std::shared_ptr<CachedFile>>;  // most recently used first
    void evictUntilWithin(std::size_t maxBytes) noexcept;
    void eraseAt(Order::iterator position) noexcept;

    std::size_t maxBytes_;
    std::size_t chargedBytes_ = 0;
    Order order_;
    // Keys are views of the entries' own key strings, which live as long as their entries are in order_.
    std::unordered_map<std::string_view, Order::iterator> byKey_;
};

}  // namespace loopwire::files
