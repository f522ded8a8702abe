#include "static/RequestPath.h"

#include "../GuardedBuffer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace loopwire::files {
namespace {

struct Resolved {
    PathVerdict verdict = PathVerdict::BadRequest;
    std::string relative;
    bool directory = false;
};

Resolved resolve(std::string_view encoded, Dotfiles dotfiles = Dotfiles::Deny) {
    RequestPath path;
    const PathVerdict verdict = path.resolve(encoded, dotfiles);
    return {verdict, std::string(path.relative()), path.directory()};
}

void expectOk(std::string_view encoded, std::string_view relative, bool directory = false,
              Dotfiles dotfiles = Dotfiles::Deny) {
    const Resolved resolved = resolve(encoded, dotfiles);
    EXPECT_EQ(resolved.verdict, PathVerdict::Ok) << encoded;
    EXPECT_EQ(resolved.relative, relative) << encoded;
    EXPECT_EQ(resolved.directory, directory) << encoded;
}

// The verdict in both dotfile policies, which must agree.
void expectInEveryPolicy(std::string_view encoded, PathVerdict expected) {
    for (const Dotfiles dotfiles : {Dotfiles::Deny, Dotfiles::Allow}) {
        const Resolved resolved = resolve(encoded, dotfiles);
        EXPECT_EQ(resolved.verdict, expected) << encoded << " under policy " << static_cast<int>(dotfiles);
        EXPECT_TRUE(resolved.relative.empty()) << encoded;
        EXPECT_FALSE(resolved.directory) << encoded;
    }
}

TEST(RequestPath, DecodesPercentEscapesInEitherCase) {
    expectOk("css/site%20main.css", "css/site main.css");
    expectOk("%41%62%63", "Abc");
    expectOk("caf%C3%A9.html", "caf\xC3\xA9.html");
    expectOk("caf%c3%a9.html", "caf\xC3\xA9.html");
    expectOk("caf\xC3\xA9.html", "caf\xC3\xA9.html");  // raw UTF-8 is kept
}

TEST(RequestPath, DecodesExactlyOnce) {
    expectOk("%25", "%");
    expectOk("a%2541", "a%41");        // a decoded '%' does not start an escape
    expectOk("%252e%252e", "%2e%2e");  // a doubly encoded '..' is a plain name
    expectOk("%252f", "%2f");
    expectOk("%255c", "%5c");
    expectOk("%2500", "%00");
}

TEST(RequestPath, KeepsPlusAndOtherReservedBytes) {
    expectOk("a+b.txt", "a+b.txt");  // paths are not form-encoded
    expectOk("a%2Bb", "a+b");
    expectOk("a%3Fb%23c", "a?b#c");
    expectOk("a;b:c@d=e,f", "a;b:c@d=e,f");
}

TEST(RequestPath, TakesThePathWithOrWithoutItsLeadingSlash) {
    expectOk("/img/a.png", "img/a.png");
    expectOk("img/a.png", "img/a.png");
    expectOk("///img/a.png", "img/a.png");
}

TEST(RequestPath, RefusesInvalidEscapes) {
    for (std::string_view encoded :
         {"%", "%2", "a%", "a%4", "%zz", "%g0", "%0g", "%%41", "a/%/b", "% 20", "%-1", "%+1", "%\xC3\xA9", "ok/%2"}) {
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

// An escape cut short by the end of the input is refused without reading past it.
TEST(RequestPath, ReadsNoBytePastATruncatedEscape) {
    test::GuardedBuffer guard(16);
    for (std::string_view encoded : {"%", "a%", "a%4", "a/%F"}) {
        const char* placed = guard.place(encoded);
        RequestPath path;
        EXPECT_EQ(path.resolve(std::string_view(placed, encoded.size())), PathVerdict::BadRequest) << encoded;
    }
}

TEST(RequestPath, RefusesEveryTraversalSpelling) {
    for (std::string_view encoded : {"..",
                                     "/..",
                                     "../",
                                     "../etc/passwd",
                                     "a/../b",
                                     "a/..",
                                     "a/b/../../..",
                                     "/../../etc/passwd",
                                     "%2e%2e",
                                     "%2E%2E",
                                     "%2E%2e",
                                     "%2e%2E/",
                                     ".%2e",
                                     ".%2E",
                                     "%2e.",
                                     "%2E./x",
                                     "a/%2e%2e/b",
                                     "/%2e%2e/%2e%2e/etc/passwd",
                                     "..%2f",
                                     "..%2F",
                                     "%2e%2e%2f",
                                     "..%2fetc",
                                     "%2e%2e%5c",
                                     "..\\",
                                     "..\\x",
                                     "..%5c",
                                     "..%5C",
                                     "x/..%5c..%5cwin",
                                     ".%2e/.%2e/etc/passwd"}) {
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

TEST(RequestPath, RefusesToClimbEvenWithinTheRoot) {
    expectInEveryPolicy("a/b/../c", PathVerdict::BadRequest);
    expectInEveryPolicy("a/%2e%2e/a/c", PathVerdict::BadRequest);
}

// Runs of three or more dots, "..;" (a Tomcat path parameter) and an overlong UTF-8 spelling of '.' are names on
// Linux, not a way up; they are dotfiles, so served only when the policy allows.
TEST(RequestPath, OtherDotSpellingsAreNames) {
    for (std::string_view encoded : {"...", "....//", "..;", "..;/x", ".../x", "%2e%2e%2e"}) {
        EXPECT_EQ(resolve(encoded).verdict, PathVerdict::NotFound) << encoded;
    }
    expectOk("....//", "....", true, Dotfiles::Allow);
    expectOk("....//x", "..../x", false, Dotfiles::Allow);
    expectOk("..;/x", "..;/x", false, Dotfiles::Allow);
    expectOk("%2e%2e%2e", "...", false, Dotfiles::Allow);
    expectOk("%c0%ae%c0%ae/x", "\xC0\xAE\xC0\xAE/x");
    expectOk("a..b/c..", "a..b/c..");  // two dots inside a name are not a segment of their own
}

TEST(RequestPath, RefusesAnEncodedSlash) {
    for (std::string_view encoded : {"%2f", "%2F", "a%2fb", "a%2Fb", "%2F..%2F", "css%2f", "/%2f/etc/passwd"}) {
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

TEST(RequestPath, RefusesABackslashRawOrEncoded) {
    for (std::string_view encoded : {"\\", "a\\b", "\\a", "%5c", "%5C", "a%5cb", "a%5Cb"}) {
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

TEST(RequestPath, RefusesANulRawOrEncoded) {
    for (std::string_view encoded :
         {std::string_view("\0", 1), std::string_view("a\0b", 3), std::string_view("a.txt\0.png", 10),
          std::string_view("%00"), std::string_view("a.txt%00.png")}) {
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

TEST(RequestPath, RefusesEveryControlByteRawOrEncoded) {
    constexpr char kHex[] = "0123456789ABCDEF";
    for (unsigned byte = 1; byte < 0x80; ++byte) {
        if (byte >= 0x20 && byte != 0x7f) continue;
        const std::string raw = "a" + std::string(1, static_cast<char>(byte)) + "b";
        const std::string encoded = std::string("a%") + kHex[byte >> 4] + kHex[byte & 15] + "b";
        expectInEveryPolicy(raw, PathVerdict::BadRequest);
        expectInEveryPolicy(encoded, PathVerdict::BadRequest);
    }
}

TEST(RequestPath, KeepsSpaceAndBytesPastAscii) {
    expectOk("a%20b", "a b");
    expectOk("%80%FF", "\x80\xFF");
    expectOk("\x80\xFF", "\x80\xFF");
    expectOk("%7E", "~");
}

TEST(RequestPath, CollapsesEmptySegmentsAndRemovesDotSegments) {
    expectOk("a//b", "a/b");
    expectOk("//a///b//", "a/b", true);
    expectOk("./a", "a");
    expectOk("a/./b", "a/b");
    expectOk("a/%2e/b", "a/b");
    expectOk("a/%2E/./b", "a/b");
}

TEST(RequestPath, ADotSegmentAtTheEndIsADirectory) {
    expectOk("a/.", "a", true);
    expectOk("a/%2e", "a", true);
    expectOk("a/./", "a", true);
    expectOk("a/./b", "a/b", false);
}

TEST(RequestPath, TheEmptyPathIsTheRootDirectoryWithoutItsSlash) {
    expectOk("", "", false);
    expectOk("/", "", true);
    expectOk("//", "", true);
    expectOk(".", "", true);
    expectOk("/./", "", true);
}

TEST(RequestPath, TellsADirectoryRequestByItsTrailingSlash) {
    expectOk("css/", "css", true);
    expectOk("css", "css", false);
    expectOk("a/b/", "a/b", true);
    expectOk("a.txt/", "a.txt", true);  // the file handler answers 404 for a file asked as a directory
    expectInEveryPolicy("css%2f", PathVerdict::BadRequest);
}

TEST(RequestPath, DeniesDotfilesByDefaultAsNotFound) {
    for (std::string_view encoded : {".env", ".git/config", "/.git/", "a/.htaccess", "%2egit/HEAD", "a/%2Essh/id_rsa",
                                     ".well-known/.secret", "a/.well-known/x", ".a", "x/.y/z"}) {
        const Resolved resolved = resolve(encoded);
        EXPECT_EQ(resolved.verdict, PathVerdict::NotFound) << encoded;
        EXPECT_TRUE(resolved.relative.empty()) << encoded;
        EXPECT_EQ(resolve(encoded, Dotfiles::Deny).verdict, PathVerdict::NotFound) << encoded;
    }
}

TEST(RequestPath, ServesDotfilesWhenAllowed) {
    expectOk(".env", ".env", false, Dotfiles::Allow);
    expectOk(".git/config", ".git/config", false, Dotfiles::Allow);
    expectOk("a/%2Essh/id_rsa", "a/.ssh/id_rsa", false, Dotfiles::Allow);
    expectOk(".well-known/.secret", ".well-known/.secret", false, Dotfiles::Allow);
    expectOk("a/.well-known/x", "a/.well-known/x", false, Dotfiles::Allow);
}

TEST(RequestPath, ServesTheWellKnownFirstSegmentInEveryPolicy) {
    EXPECT_EQ(RequestPath::kWellKnown, ".well-known");
    for (const Dotfiles dotfiles : {Dotfiles::Deny, Dotfiles::Allow}) {
        expectOk(".well-known/acme-challenge/token", ".well-known/acme-challenge/token", false, dotfiles);
        expectOk("/.well-known/", ".well-known", true, dotfiles);
        expectOk(".well-known", ".well-known", false, dotfiles);
        expectOk("%2ewell-known/security.txt", ".well-known/security.txt", false, dotfiles);
        expectOk("//./.well-known/x", ".well-known/x", false, dotfiles);  // the first segment that remains
    }
}

TEST(RequestPath, ServesOnlyTheExactWellKnownSegmentUnderDeny) {
    for (std::string_view encoded : {".well-knownx/a", ".well-know/a", ".Well-Known/x", ".WELL-KNOWN/x",
                                     "a/.well-known/x", ".well-known/.secret", ".well-known/a/.git/x"}) {
        EXPECT_EQ(resolve(encoded).verdict, PathVerdict::NotFound) << encoded;
    }
}

TEST(RequestPath, ABadRequestAnywhereWinsOverNotFound) {
    expectInEveryPolicy(".git/../x", PathVerdict::BadRequest);
    expectInEveryPolicy(".env/%zz", PathVerdict::BadRequest);
    expectInEveryPolicy(".env%00", PathVerdict::BadRequest);
    expectInEveryPolicy(std::string(RequestPath::kMaxPathBytes + 10, 'a') + "/..", PathVerdict::BadRequest);
    expectInEveryPolicy(std::string(RequestPath::kMaxPathBytes + 10, 'a') + "/%5c", PathVerdict::BadRequest);
}

TEST(RequestPath, TakesAPathOfTheLimitAndNotOneByteMore) {
    constexpr std::size_t kMax = RequestPath::kMaxPathBytes;
    const std::string atLimit(kMax, 'a');
    expectOk(atLimit, atLimit);
    expectOk("/" + atLimit + "/", atLimit, true);  // slashes around it do not count
    EXPECT_EQ(resolve(atLimit + "b").verdict, PathVerdict::NotFound);
    EXPECT_EQ(resolve(atLimit + "/b").verdict, PathVerdict::NotFound) << "the separator counts";
    // Many segments that end exactly at the limit, and one byte past it.
    std::string segments;
    while (segments.size() + 10 < kMax)
        segments += "abcdefghi/";
    segments += std::string(kMax - segments.size(), 'z');
    ASSERT_EQ(segments.size(), kMax);
    expectOk(segments, segments);
    EXPECT_EQ(resolve(segments + "z").verdict, PathVerdict::NotFound);
}

TEST(RequestPath, MeasuresTheLimitOnTheDecodedPath) {
    constexpr std::size_t kMax = RequestPath::kMaxPathBytes;
    std::string encoded;
    for (std::size_t i = 0; i < kMax; ++i)
        encoded += "%41";
    expectOk(encoded, std::string(kMax, 'A'));
    EXPECT_EQ(resolve(encoded + "%41").verdict, PathVerdict::NotFound);
    std::string collapsed;
    for (std::size_t i = 0; i < kMax; ++i)
        collapsed += "b//./";
    const Resolved resolved = resolve(collapsed);
    EXPECT_EQ(resolved.verdict, PathVerdict::NotFound) << "2 * kMax - 1 bytes once decoded";
    std::string shortened;
    for (std::size_t i = 0; i < kMax / 2; ++i)
        shortened += "b//./";
    EXPECT_EQ(resolve(shortened).verdict, PathVerdict::Ok);
    EXPECT_EQ(resolve(shortened).relative.size(), kMax - 2);
}

TEST(RequestPath, ANulFollowsTheRelativePath) {
    RequestPath path;
    ASSERT_EQ(path.resolve("a/bcdef/ghi"), PathVerdict::Ok);
    ASSERT_EQ(path.resolve("a//b"), PathVerdict::Ok);
    EXPECT_EQ(path.relative(), "a/b");
    EXPECT_EQ(path.relative().data()[path.relative().size()], '\0');
    const std::string atLimit(RequestPath::kMaxPathBytes, 'x');
    ASSERT_EQ(path.resolve(atLimit), PathVerdict::Ok);
    EXPECT_EQ(path.relative().data()[RequestPath::kMaxPathBytes], '\0');
    ASSERT_EQ(path.resolve(""), PathVerdict::Ok);
    EXPECT_EQ(path.relative().data()[0], '\0');
}

TEST(RequestPath, AnotherVerdictClearsTheLastAnswer) {
    RequestPath path;
    ASSERT_EQ(path.resolve("a/b/"), PathVerdict::Ok);
    ASSERT_TRUE(path.directory());
    EXPECT_EQ(path.resolve("a/%zz/"), PathVerdict::BadRequest);
    EXPECT_TRUE(path.relative().empty());
    EXPECT_FALSE(path.directory());
    ASSERT_EQ(path.resolve("a/b/"), PathVerdict::Ok);
    EXPECT_EQ(path.resolve("a/.git/"), PathVerdict::NotFound);
    EXPECT_TRUE(path.relative().empty());
    EXPECT_FALSE(path.directory());
}

// Whatever the input, an Ok path never holds a way up, an empty or dot segment, a NUL or a backslash.
TEST(RequestPath, RandomPathsKeepTheInvariants) {
    const std::vector<std::string> pieces = {"a",   "b.c",         ".",   "..",  "/",      "//",  "%2e",
                                             "%2E", "%2f",         "%5c", "%",   "%4",     "%41", "%00",
                                             "\\",  ".well-known", "+",   "%25", "%C3%A9", "~"};
    std::mt19937 random(44);
    int ok = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string encoded;
        const int count = 1 + static_cast<int>(random() % 8);
        for (int i = 0; i < count; ++i)
            encoded += pieces[random() % pieces.size()];
        const Dotfiles dotfiles = random() % 2 ? Dotfiles::Allow : Dotfiles::Deny;
        const Resolved resolved = resolve(encoded, dotfiles);
        if (resolved.verdict != PathVerdict::Ok) continue;
        ++ok;
        const std::string& path = resolved.relative;
        ASSERT_EQ(path.find('\\'), std::string::npos) << encoded;
        ASSERT_EQ(path.find('\0'), std::string::npos) << encoded;
        ASSERT_EQ(path.find("//"), std::string::npos) << encoded;
        ASSERT_FALSE(path.starts_with('/') || path.ends_with('/')) << encoded;
        const std::string bounded = "/" + path + "/";
        ASSERT_EQ(bounded.find("/../"), std::string::npos) << encoded;
        ASSERT_EQ(bounded.find("/./"), std::string::npos) << encoded;
        if (dotfiles == Dotfiles::Deny) {
            const std::string rest = path.starts_with(".well-known") ? bounded.substr(12) : bounded;
            ASSERT_EQ(rest.find("/."), std::string::npos) << encoded;
        }
    }
    EXPECT_GT(ok, 1000) << "the pieces give enough good paths to test something";
}

std::string location(std::string_view requestPath, std::string_view query = {}) {
    std::vector<char> out(3 * (requestPath.size() + query.size()) + 3);
    return std::string(RequestPath::directoryLocation(requestPath, query, out));
}

TEST(RequestPath, DirectoryLocationIsThePathWithItsSlash) {
    EXPECT_EQ(location("/static/docs"), "/static/docs/");
    EXPECT_EQ(location("/static/site%20main"), "/static/site%20main/") << "escapes are kept as received";
    EXPECT_EQ(location("/static/docs", "a=1&b=%20"), "/static/docs/?a=1&b=%20");
    EXPECT_EQ(location("/static/docs/"), "/static/docs/") << "no second slash";
    EXPECT_EQ(location(""), "/");
    EXPECT_EQ(location("docs"), "/docs/");
}

TEST(RequestPath, DirectoryLocationStaysOnThisHost) {
    EXPECT_EQ(location("//evil.example"), "/evil.example/");
    EXPECT_EQ(location("///evil.example/x"), "/evil.example/x/");
    EXPECT_EQ(location("/\\evil.example"), "/%5Cevil.example/");
    EXPECT_EQ(location("/\t/evil.example"), "/%09/evil.example/") << "browsers drop a raw tab";
}

TEST(RequestPath, DirectoryLocationEncodesWhatAFieldMayNotHold) {
    EXPECT_EQ(location("/a\r\nSet-Cookie: x=1"), "/a%0D%0ASet-Cookie:%20x=1/");
    EXPECT_EQ(location(std::string_view("/a\0b", 4)), "/a%00b/");
    EXPECT_EQ(location("/a#b"), "/a%23b/");
    EXPECT_EQ(location("/caf\xC3\xA9"), "/caf%C3%A9/");
    EXPECT_EQ(location("/a\"<>`{}|^"), "/a%22%3C%3E%60%7B%7D%7C%5E/");
    EXPECT_EQ(location("/a?b"), "/a%3Fb/") << "a '?' in the path would start the query";
    EXPECT_EQ(location("/a", "q=1?2#x\r\n"), "/a/?q=1?2%23x%0D%0A");
}

TEST(RequestPath, DirectoryLocationNeedsRoomForAllOfIt) {
    char out[64];
    const std::string_view full = RequestPath::directoryLocation("/static/docs", "a=1", out);
    ASSERT_EQ(full, "/static/docs/?a=1");
    for (std::size_t size = 0; size < full.size(); ++size) {
        EXPECT_TRUE(RequestPath::directoryLocation("/static/docs", "a=1", std::span<char>(out, size)).empty()) << size;
    }
    EXPECT_EQ(RequestPath::directoryLocation("/static/docs", "a=1", std::span<char>(out, full.size())), full);
    EXPECT_EQ(RequestPath::directoryLocation("/\x01", "", std::span<char>(out, 5)), "/%01/");
    EXPECT_TRUE(RequestPath::directoryLocation("/\x01", "", std::span<char>(out, 4)).empty()) << "no room for '/'";
    EXPECT_TRUE(RequestPath::directoryLocation("/\x01", "", std::span<char>(out, 3)).empty()) << "nor for the escape";
    // The bound the header gives, with every byte encoded and no leading slash to save.
    const std::string worst(50, '\n');
    std::vector<char> bound(3 * (worst.size() + worst.size()) + 3);
    EXPECT_EQ(RequestPath::directoryLocation(worst, worst, bound).size(), bound.size());
}

// HttpResponse::sendFile's paths are file names, not URLs: the same rules, but '%' is a byte like any other.
TEST(RequestPath, WithoutEncodingAPercentIsAPlainByte) {
    RequestPath path;
    ASSERT_EQ(path.resolve("/files/100%.txt", Dotfiles::Deny, PathEncoding::None), PathVerdict::Ok);
    EXPECT_EQ(path.relative(), "files/100%.txt");
    ASSERT_EQ(path.resolve("a%2fb%2e%2e", Dotfiles::Deny, PathEncoding::None), PathVerdict::Ok);
    EXPECT_EQ(path.relative(), "a%2fb%2e%2e");
    // Still refused: a climb, a backslash, a NUL, a dotfile under Deny; empty and "." segments still go.
    EXPECT_EQ(path.resolve("a/../b", Dotfiles::Deny, PathEncoding::None), PathVerdict::BadRequest);
    EXPECT_EQ(path.resolve("a\\b", Dotfiles::Deny, PathEncoding::None), PathVerdict::BadRequest);
    EXPECT_EQ(path.resolve(std::string_view("a\0b", 3), Dotfiles::Deny, PathEncoding::None), PathVerdict::BadRequest);
    EXPECT_EQ(path.resolve("home/.config/x", Dotfiles::Deny, PathEncoding::None), PathVerdict::NotFound);
    ASSERT_EQ(path.resolve("//a/./b", Dotfiles::Deny, PathEncoding::None), PathVerdict::Ok);
    EXPECT_EQ(path.relative(), "a/b");
}

}  // namespace
}  // namespace loopwire::files
