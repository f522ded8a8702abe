// FileCache (core/static/FileCache.h): a static mount's entries, least recently used first out once their bytes
// pass the bound. Here (and not in unit_static) because FileCache is in lw_static, which the integration binary
// links through loopwire; no server or file is needed.
#include "static/FileCache.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace loopwire::test {
namespace {

using files::CachedFile;
using files::FileCache;

// An entry whose body is bodyBytes bytes of fill: its charge is sizeof(CachedFile) + the key's and body's bytes.
std::shared_ptr<CachedFile> entryOf(std::string key, std::size_t bodyBytes, char fill = 'x') {
    auto entry = std::make_shared<CachedFile>();
    entry->key = std::move(key);
    entry->body.assign(bodyBytes, fill);
    entry->bodyInMemory = true;
    return entry;
}

// Entries of one-letter keys and this body are charged the same, so that bounds are counted in entries.
constexpr std::size_t kBodyBytes = 1000;
const std::size_t kCharge = entryOf("a", kBodyBytes)->chargedBytes();

// The keys found, in the order asked; finding marks each used, so the caller asks in the order it wants them used.
std::string keysFound(FileCache& cache, std::initializer_list<std::string_view> keys) {
    std::string found;
    for (std::string_view key : keys) {
        if (cache.find(key) != nullptr) found += key;
    }
    return found;
}

TEST(FileCache, AMissFindsNothing) {
    FileCache cache(10 * kCharge);
    EXPECT_EQ(cache.find("a"), nullptr);
    EXPECT_EQ(cache.find(""), nullptr);
    cache.insert(entryOf("a", kBodyBytes));
    EXPECT_EQ(cache.find("b"), nullptr);
    EXPECT_EQ(cache.find("A"), nullptr);
    EXPECT_EQ(cache.find("a/"), nullptr);
    EXPECT_EQ(cache.find(""), nullptr);
}

TEST(FileCache, AnInsertedEntryIsFoundAndCharged) {
    FileCache cache(10 * kCharge);
    const auto a = entryOf("a", kBodyBytes);
    const auto docs = entryOf("docs/guide.md", 10);
    cache.insert(a);
    cache.insert(docs);
    const std::shared_ptr<CachedFile>* found = cache.find("a");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->get(), a.get());
    found = cache.find("docs/guide.md");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->get(), docs.get());
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.chargedBytes(), a->chargedBytes() + docs->chargedBytes());
    EXPECT_EQ(a->chargedBytes(), sizeof(CachedFile) + 1 + kBodyBytes);
    EXPECT_EQ(cache.maxBytes(), 10 * kCharge);
}

TEST(FileCache, FindingAnEntryKeepsItWhenOthersAreEvicted) {
    FileCache cache(3 * kCharge);
    for (const char* key : {"a", "b", "c"})
        cache.insert(entryOf(key, kBodyBytes));
    // Untouched, the first in is the first out.
    cache.insert(entryOf("d", kBodyBytes));
    EXPECT_EQ(cache.find("a"), nullptr);
    // b is used, so c, now the least recently used, goes next; then d.
    ASSERT_NE(cache.find("b"), nullptr);
    cache.insert(entryOf("e", kBodyBytes));
    EXPECT_EQ(cache.find("c"), nullptr);
    EXPECT_EQ(keysFound(cache, {"b", "e"}), "be");  // d is now the least recently used
    cache.insert(entryOf("f", kBodyBytes));
    EXPECT_EQ(cache.find("d"), nullptr);
    EXPECT_EQ(keysFound(cache, {"b", "e", "f"}), "bef");
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(cache.chargedBytes(), 3 * kCharge);
}

TEST(FileCache, EvictsUntilTheChargedBytesAreWithinTheBound) {
    FileCache cache(3 * kCharge + kCharge / 2);
    for (const char* key : {"a", "b", "c"})
        cache.insert(entryOf(key, kBodyBytes));
    EXPECT_EQ(cache.chargedBytes(), 3 * kCharge);
    EXPECT_EQ(cache.size(), 3u);
    // A fourth passes the bound: one goes.
    cache.insert(entryOf("d", kBodyBytes));
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(cache.chargedBytes(), 3 * kCharge);
    EXPECT_EQ(keysFound(cache, {"a", "b", "c", "d"}), "bcd");
    // One of two entries' size: the two least recently used go (b, c), the last used (d) stays.
    const auto wide = entryOf("w", 2 * kCharge - sizeof(CachedFile) - 1);
    ASSERT_EQ(wide->chargedBytes(), 2 * kCharge);
    cache.insert(wide);
    EXPECT_EQ(keysFound(cache, {"b", "c", "d", "w"}), "dw");
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.chargedBytes(), 3 * kCharge);
    EXPECT_LE(cache.chargedBytes(), cache.maxBytes());
}

TEST(FileCache, AnEntryLargerThanTheBoundIsNotKeptAndEvictsNothing) {
    FileCache cache(3 * kCharge);
    cache.insert(entryOf("a", kBodyBytes));
    cache.insert(entryOf("b", kBodyBytes));
    const auto huge = entryOf("h", 4 * kCharge, 'h');
    cache.insert(huge);
    EXPECT_EQ(cache.find("h"), nullptr);
    // The entries already there stay: making room for an entry that cannot be kept would only empty the cache.
    EXPECT_EQ(keysFound(cache, {"a", "b"}), "ab");
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.chargedBytes(), 2 * kCharge);
    // The caller's reference is the only one left, and the entry is whole.
    EXPECT_EQ(huge.use_count(), 1);
    EXPECT_EQ(huge->body, std::string(4 * kCharge, 'h'));
    // Just within the bound is kept.
    FileCache exact(kCharge);
    exact.insert(entryOf("e", kBodyBytes));
    EXPECT_NE(exact.find("e"), nullptr);
    EXPECT_EQ(exact.chargedBytes(), kCharge);
}

TEST(FileCache, InsertingAKeyAgainReplacesItsEntry) {
    FileCache cache(3 * kCharge);
    const auto first = entryOf("a", kBodyBytes, '1');
    cache.insert(first);
    cache.insert(entryOf("b", kBodyBytes));
    cache.insert(entryOf("c", kBodyBytes));
    // Same key, same size, in a full cache: the old entry makes room, so nothing else goes.
    const auto second = entryOf("a", kBodyBytes, '2');
    cache.insert(second);
    EXPECT_EQ(first.use_count(), 1);  // the cache let go of it
    ASSERT_NE(cache.find("a"), nullptr);
    EXPECT_EQ(cache.find("a")->get(), second.get());
    EXPECT_EQ(keysFound(cache, {"b", "c"}), "bc");
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(cache.chargedBytes(), 3 * kCharge);
    // A smaller one in its place: the charge follows.
    const auto third = entryOf("a", 10, '3');
    cache.insert(third);
    EXPECT_EQ(cache.find("a")->get(), third.get());
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(cache.chargedBytes(), 2 * kCharge + third->chargedBytes());
    cache.erase("a");
    EXPECT_EQ(cache.chargedBytes(), 2 * kCharge);
}

TEST(FileCache, EraseRemovesOneEntry) {
    FileCache cache(10 * kCharge);
    for (const char* key : {"a", "b", "c"})
        cache.insert(entryOf(key, kBodyBytes));
    cache.erase("b");
    EXPECT_EQ(cache.find("b"), nullptr);
    EXPECT_EQ(keysFound(cache, {"a", "c"}), "ac");
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.chargedBytes(), 2 * kCharge);
    cache.erase("b");
    cache.erase("missing");
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.chargedBytes(), 2 * kCharge);
    // Erased, b is no longer counted in the order either: the bound holds three again.
    cache.insert(entryOf("d", kBodyBytes));
    EXPECT_EQ(keysFound(cache, {"a", "c", "d"}), "acd");
}

TEST(FileCache, ClearEmptiesItAndLetsGoOfEveryEntry) {
    FileCache cache(10 * kCharge);
    std::weak_ptr<CachedFile> watched;
    {
        const auto a = entryOf("a", kBodyBytes);
        watched = a;
        cache.insert(a);
    }
    cache.insert(entryOf("b", kBodyBytes));
    ASSERT_FALSE(watched.expired());
    cache.clear();
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.chargedBytes(), 0u);
    EXPECT_EQ(keysFound(cache, {"a", "b"}), "");
    EXPECT_TRUE(watched.expired());
    // Usable again, with its bound.
    cache.insert(entryOf("c", kBodyBytes));
    EXPECT_EQ(keysFound(cache, {"c"}), "c");
    EXPECT_EQ(cache.chargedBytes(), kCharge);
}

TEST(FileCache, AnEvictedEntryLivesWhileAResponseHoldsIt) {
    FileCache cache(2 * kCharge);
    std::shared_ptr<CachedFile> held;
    std::weak_ptr<CachedFile> notHeld;
    {
        const auto a = entryOf("a", kBodyBytes, 'a');
        const auto b = entryOf("b", kBodyBytes, 'b');
        cache.insert(a);
        cache.insert(b);
        held = *cache.find("a");  // as a response streaming it holds it
        notHeld = b;
    }
    // c and d push a and b out.
    cache.insert(entryOf("c", kBodyBytes));
    cache.insert(entryOf("d", kBodyBytes));
    EXPECT_EQ(keysFound(cache, {"a", "b"}), "");
    EXPECT_TRUE(notHeld.expired());
    ASSERT_EQ(held.use_count(), 1);
    EXPECT_EQ(held->key, "a");
    EXPECT_EQ(held->body, std::string(kBodyBytes, 'a'));
    // Erasing and clearing leave it alone too.
    cache.clear();
    EXPECT_EQ(held->body, std::string(kBodyBytes, 'a'));
}

TEST(FileCache, ABoundOfZeroKeepsNothing) {
    FileCache cache(0);
    // Even an entry without a body (a folder, or a file read from disk per response) costs its own size.
    const auto folder = entryOf("docs", 0);
    folder->kind = CachedFile::Kind::Directory;
    folder->bodyInMemory = false;
    const auto file = entryOf("a", kBodyBytes);
    cache.insert(folder);
    cache.insert(file);
    EXPECT_EQ(keysFound(cache, {"docs", "a"}), "");
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.chargedBytes(), 0u);
    EXPECT_EQ(folder.use_count(), 1);
    EXPECT_EQ(file.use_count(), 1);
}

}  // namespace
}  // namespace loopwire::test
