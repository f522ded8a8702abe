#include "static/MimeTypes.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace loopwire::files {
namespace {

struct Expected {
    std::string_view extension;
    std::string_view contentType;
    bool compressible;
};

constexpr Expected kCommon[] = {
    {"html", "text/html; charset=utf-8", true},
    {"htm", "text/html; charset=utf-8", true},
    {"css", "text/css; charset=utf-8", true},
    {"js", "text/javascript; charset=utf-8", true},
    {"mjs", "text/javascript; charset=utf-8", true},
    {"json", "application/json", true},
    {"map", "application/json", true},
    {"txt", "text/plain; charset=utf-8", true},
    {"csv", "text/csv; charset=utf-8", true},
    {"md", "text/markdown; charset=utf-8", true},
    {"ics", "text/calendar; charset=utf-8", true},
    {"vtt", "text/vtt; charset=utf-8", true},
    {"xml", "application/xml", true},
    {"xhtml", "application/xhtml+xml", true},
    {"rss", "application/rss+xml", true},
    {"atom", "application/atom+xml", true},
    {"jsonld", "application/ld+json", true},
    {"geojson", "application/geo+json", true},
    {"gltf", "model/gltf+json", true},
    {"yaml", "application/yaml", true},
    {"yml", "application/yaml", true},
    {"svg", "image/svg+xml", true},
    {"webmanifest", "application/manifest+json", true},
    {"wasm", "application/wasm", true},
    {"ttf", "font/ttf", true},
    {"otf", "font/otf", true},
    {"eot", "application/vnd.ms-fontobject", true},
    {"ico", "image/x-icon", true},
    {"bmp", "image/bmp", true},
    {"png", "image/png", false},
    {"apng", "image/apng", false},
    {"jpg", "image/jpeg", false},
    {"jpeg", "image/jpeg", false},
    {"gif", "image/gif", false},
    {"webp", "image/webp", false},
    {"avif", "image/avif", false},
    {"jxl", "image/jxl", false},
    {"tif", "image/tiff", false},
    {"tiff", "image/tiff", false},
    {"woff", "font/woff", false},
    {"woff2", "font/woff2", false},
    {"pdf", "application/pdf", false},
    {"zip", "application/zip", false},
    {"gz", "application/gzip", false},
    {"tgz", "application/gzip", false},
    {"br", "application/x-brotli", false},
    {"zst", "application/zstd", false},
    {"xz", "application/x-xz", false},
    {"bz2", "application/x-bzip2", false},
    {"tar", "application/x-tar", false},
    {"7z", "application/x-7z-compressed", false},
    {"rar", "application/vnd.rar", false},
    {"epub", "application/epub+zip", false},
    {"glb", "model/gltf-binary", false},
    {"mp3", "audio/mpeg", false},
    {"aac", "audio/aac", false},
    {"m4a", "audio/mp4", false},
    {"flac", "audio/flac", false},
    {"wav", "audio/wav", false},
    {"ogg", "audio/ogg", false},
    {"oga", "audio/ogg", false},
    {"opus", "audio/ogg", false},
    {"weba", "audio/webm", false},
    {"mp4", "video/mp4", false},
    {"m4v", "video/mp4", false},
    {"webm", "video/webm", false},
    {"ogv", "video/ogg", false},
    {"mov", "video/quicktime", false},
    {"mkv", "video/x-matroska", false},
    {"avi", "video/x-msvideo", false},
    {"mpeg", "video/mpeg", false},
    {"mpg", "video/mpeg", false},
    {"3gp", "video/3gpp", false},
};

TEST(MimeTypes, KnowsTheCommonWebTypes) {
    const MimeTypes types;
    for (const Expected& expected : kCommon) {
        const MediaType type = types.forExtension(expected.extension);
        EXPECT_EQ(type.contentType, expected.contentType) << expected.extension;
        EXPECT_EQ(type.compressible, expected.compressible) << expected.extension;
        EXPECT_EQ(type.compressible, MimeTypes::isCompressible(type.contentType)) << expected.extension;
        const MediaType byPath = types.forPath("dir/file." + std::string(expected.extension));
        EXPECT_EQ(byPath.contentType, expected.contentType) << expected.extension;
    }
}

TEST(MimeTypes, TextTypesAndOnlyThemCarryACharset) {
    const MimeTypes types;
    for (const Expected& expected : kCommon) {
        const std::string_view type = types.forExtension(expected.extension).contentType;
        EXPECT_EQ(type.starts_with("text/"), type.ends_with("; charset=utf-8")) << type;
    }
}

TEST(MimeTypes, LooksUpInAnyCase) {
    const MimeTypes types;
    EXPECT_EQ(types.forPath("INDEX.HTML").contentType, "text/html; charset=utf-8");
    EXPECT_EQ(types.forPath("a.Css").contentType, "text/css; charset=utf-8");
    EXPECT_EQ(types.forPath("photo.JpEg").contentType, "image/jpeg");
    EXPECT_EQ(types.forExtension("WOFF2").contentType, "font/woff2");
}

TEST(MimeTypes, ReadsTheLastDotOfTheLastSegment) {
    const MimeTypes types;
    EXPECT_EQ(types.forPath("backup.tar.gz").contentType, "application/gzip");
    EXPECT_EQ(types.forPath("a.b/c.css").contentType, "text/css; charset=utf-8");
    EXPECT_EQ(types.forPath("site.html/README").contentType, MimeTypes::kDefaultType) << "a dot in a directory";
    EXPECT_EQ(types.forPath("/abs/dir.d/x").contentType, MimeTypes::kDefaultType);
    EXPECT_EQ(MimeTypes::extensionOf("backup.tar.gz"), "gz");
    EXPECT_EQ(MimeTypes::extensionOf("a.b/c"), "");
    EXPECT_EQ(MimeTypes::extensionOf("a/.hidden.css"), "css");
}

TEST(MimeTypes, NamesWithoutAnExtensionAreOfTheDefaultType) {
    const MimeTypes types;
    for (std::string_view path : {"", "/", "README", "dir/", ".bashrc", "a/.css", "file.", "a/b."}) {
        EXPECT_EQ(MimeTypes::extensionOf(path), "") << path;
        const MediaType type = types.forPath(path);
        EXPECT_EQ(type.contentType, MimeTypes::kDefaultType) << path;
        EXPECT_FALSE(type.compressible) << path;
    }
}

TEST(MimeTypes, UnknownExtensionsAreOfTheDefaultType) {
    const MimeTypes types;
    EXPECT_EQ(MimeTypes::kDefaultType, "application/octet-stream");
    for (std::string_view path : {"a.exe", "a.unknown", "a.ht", "a.htmll", "a.jsx", "a.\xC3\xA9"}) {
        EXPECT_EQ(types.forPath(path).contentType, MimeTypes::kDefaultType) << path;
        EXPECT_FALSE(types.forPath(path).compressible) << path;
    }
}

TEST(MimeTypes, ExtensionsLongerThanTheBoundAreNeverFound) {
    constexpr std::size_t kMax = MimeTypes::kMaxExtensionBytes;
    MimeTypes types;
    const std::string atBound(kMax, 'q');
    ASSERT_TRUE(types.add(atBound, "text/x-q"));
    EXPECT_EQ(types.forExtension(atBound).contentType, "text/x-q");
    EXPECT_EQ(types.forPath("a." + atBound).contentType, "text/x-q");
    EXPECT_EQ(types.forPath("a." + atBound + "q").contentType, MimeTypes::kDefaultType);
    EXPECT_FALSE(types.add(atBound + "q", "text/x-q"));
    EXPECT_EQ(types.forExtension("webmanifest").contentType, "application/manifest+json");
}

TEST(MimeTypes, AddTakesATypeOfTheBoundAndNotOneByteMore) {
    constexpr std::size_t kMax = MimeTypes::kMaxTypeBytes;
    MimeTypes types;
    const std::string prefix = "application/x-";
    const std::string atBound = prefix + std::string(kMax - prefix.size(), 'y');
    ASSERT_EQ(atBound.size(), kMax);
    ASSERT_TRUE(types.add("y", atBound));
    EXPECT_EQ(types.forExtension("y").contentType, atBound);
    EXPECT_FALSE(types.add("y", atBound + "y"));
    EXPECT_FALSE(types.add("z", "text/plain; a=\"" + std::string(kMax, 'z') + "\""));
    EXPECT_EQ(types.forExtension("y").contentType, atBound) << "a refused add changes nothing";
}

TEST(MimeTypes, AddReplacesABuiltInEntry) {
    MimeTypes types;
    ASSERT_TRUE(types.add("json", "application/vnd.api+json"));
    EXPECT_EQ(types.forPath("a.json").contentType, "application/vnd.api+json");
    EXPECT_TRUE(types.forPath("a.json").compressible);
    ASSERT_TRUE(types.add("txt", "application/x-opaque"));
    EXPECT_EQ(types.forPath("a.TXT").contentType, "application/x-opaque");
    EXPECT_FALSE(types.forPath("a.txt").compressible) << "derived from the new type, not kept from the old";
    ASSERT_TRUE(types.add("png", "text/plain"));
    EXPECT_TRUE(types.forPath("a.png").compressible);
    const MimeTypes untouched;
    EXPECT_EQ(untouched.forPath("a.json").contentType, "application/json") << "each object has its own additions";
}

TEST(MimeTypes, AddTakesNewExtensionsInAnyCaseWithOrWithoutTheirDot) {
    MimeTypes types;
    ASSERT_TRUE(types.add(".Foo", "application/x-foo"));
    EXPECT_EQ(types.forPath("a.FOO").contentType, "application/x-foo");
    EXPECT_EQ(types.forExtension("foo").contentType, "application/x-foo");
    EXPECT_FALSE(types.forPath("a.foo").compressible);
    ASSERT_TRUE(types.add("foo", "text/x-foo; charset=utf-8"));
    EXPECT_EQ(types.forPath("a.foo").contentType, "text/x-foo; charset=utf-8") << "a later add replaces";
    EXPECT_TRUE(types.forPath("a.foo").compressible);
    ASSERT_TRUE(types.add("bar", "application/x-bar"));
    ASSERT_TRUE(types.add("aaa", "application/x-aaa"));
    EXPECT_EQ(types.forPath("a.bar").contentType, "application/x-bar");
    EXPECT_EQ(types.forPath("a.aaa").contentType, "application/x-aaa");
    EXPECT_EQ(types.forPath("a.foo").contentType, "text/x-foo; charset=utf-8");
    EXPECT_EQ(types.forPath("a.css").contentType, "text/css; charset=utf-8") << "built-ins still found";
}

TEST(MimeTypes, AddTakesParameters) {
    MimeTypes types;
    for (std::string_view type :
         {"text/plain; charset=utf-8", "text/plain;charset=\"utf-8\"", "application/x-foo; a=b; c=\"d e\"",
          "application/x-foo ;\ta=b", "application/x-foo; a=\"q\\\"uote\"", "text/plain;"}) {
        EXPECT_TRUE(types.add("x", type)) << type;
        EXPECT_EQ(types.forExtension("x").contentType, type);
    }
}

TEST(MimeTypes, AddRefusesABadExtensionChangingNothing) {
    MimeTypes types;
    for (std::string_view extension :
         {"", ".", "..json", "a.b", "a/b", "a\\b", "a b", "a\r", "a\n", "\xC3\xA9", "a\x7f", "\t"}) {
        EXPECT_FALSE(types.add(extension, "text/plain")) << extension;
    }
    EXPECT_FALSE(types.add(std::string_view("a\0", 2), "text/plain"));
    EXPECT_EQ(types.forExtension("a").contentType, MimeTypes::kDefaultType);
}

TEST(MimeTypes, AddRefusesWhatIsNotAMediaTypeChangingNothing) {
    MimeTypes types;
    for (std::string_view type : {"",
                                  "text",
                                  "text/",
                                  "/html",
                                  "text/html/x",
                                  "te xt/html",
                                  "text/ html",
                                  "text /html",
                                  " text/html",
                                  "text/html ",
                                  "text/html\r\nX-Injected: 1",
                                  "text/html\n",
                                  "text/html\r",
                                  "text/html; charset",
                                  "text/html; =utf-8",
                                  "text/html; charset=",
                                  "text/html; charset=\"utf-8",
                                  "text/html; a=b c",
                                  "text/html,text/plain",
                                  "text/html; a=\"\x01\"",
                                  "text/html; a=\"b\\\"",
                                  "t\xC3\xA9xt/html"}) {
        EXPECT_FALSE(types.add("json", type)) << type;
    }
    EXPECT_FALSE(types.add("json", std::string_view("text/html\0", 10)));
    EXPECT_EQ(types.forExtension("json").contentType, "application/json");
}

TEST(MimeTypes, CompressibleRule) {
    for (std::string_view type : {"text/plain",
                                  "TEXT/Plain",
                                  "text/x-anything; charset=latin1",
                                  "image/svg+xml",
                                  "image/SVG+XML",
                                  "application/vnd.api+json",
                                  "application/json; charset=utf-8",
                                  "application/javascript",
                                  "application/ecmascript",
                                  "application/x-javascript",
                                  "application/xml",
                                  "application/yaml",
                                  "application/wasm",
                                  "font/ttf",
                                  "font/otf",
                                  "application/vnd.ms-fontobject",
                                  "image/bmp",
                                  "image/x-icon",
                                  "image/vnd.microsoft.icon",
                                  "application/json ; a=b"}) {
        EXPECT_TRUE(MimeTypes::isCompressible(type)) << type;
    }
    for (std::string_view type :
         {"image/png", "image/jpeg", "image/webp", "image/avif", "font/woff", "font/woff2", "application/zip",
          "application/gzip", "application/epub+zip", "audio/mpeg", "video/mp4", "application/pdf", "", "text",
          "application/jsonx", "application/json+zip", "x/text"}) {
        EXPECT_FALSE(MimeTypes::isCompressible(type)) << type;
    }
    EXPECT_FALSE(MimeTypes::isCompressible(MimeTypes::kDefaultType));
}

}  // namespace
}  // namespace loopwire::files
