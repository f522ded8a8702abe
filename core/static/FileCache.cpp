#include "FileCache.h"

namespace loopwire::files {

const std::shared_ptr<CachedFile>* FileCache::find(std::string_view key) noexcept {
    auto found = byKey_.find(key);
    if (found == byKey_.end()) return nullptr;
    Order::iterator position = found->second;
    // splice moves the node itself: no allocation, and iterators (the map's) stay valid.
    if (position != order_.begin()) order_.splice(order_.begin(), order_, position);
    return &*position;
}

void FileCache::insert(const std::shared_ptr<CachedFile>& entry) {
    erase(entry->key);
    // Making room for an entry that cannot fit even alone would empty the cache and then drop the entry too.
    if (entry->chargedBytes() > maxBytes_) return;
    order_.push_front(entry);
    try {
        byKey_.emplace(std::string_view(entry->key), order_.begin());
    } catch (...) {
        order_.pop_front();
        throw;
    }
    chargedBytes_ += entry->chargedBytes();
    evictUntilWithin(maxBytes_);
}

void FileCache::erase(std::string_view key) noexcept {
    auto found = byKey_.find(key);
    if (found != byKey_.end()) eraseAt(found->second);
}

void FileCache::clear() noexcept { evictUntilWithin(0); }

void FileCache::evictUntilWithin(std::size_t maxBytes) noexcept {
    while (chargedBytes_ > maxBytes && !order_.empty())
        eraseAt(std::prev(order_.end()));
}

void FileCache::eraseAt(Order::iterator position) noexcept {
    // The map's key views the entry's key: erase the map node first, while the entry is alive.
    byKey_.erase(std::string_view((*position)->key));
    chargedBytes_ -= (*position)->chargedBytes();
    order_.erase(position);
}

}  // namespace loopwire::files
