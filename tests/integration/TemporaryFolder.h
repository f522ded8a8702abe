// TemporaryFolder: a folder of files for a test, removed with everything in it when the object goes. path() is a
// folder "root" inside a private parent, so that a test may also write beside the root ("../x") what must never
// be served from it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace loopwire::test {

class TemporaryFolder {
public:
    TemporaryFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "loopwire-files-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        parent_ = pattern;
        path_ = parent_ + "/root";
        std::filesystem::create_directory(path_);
    }
    ~TemporaryFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(parent_, ignored);
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;

    const std::string& path() const noexcept { return path_; }

    // Writes (replaces) the file at relative, creating its folders.
    void write(std::string_view relative, std::string_view bytes) const {
        const std::filesystem::path file = std::filesystem::path(path_) / relative;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) throw std::runtime_error("cannot write " + file.string());
    }
    void makeDirectory(std::string_view relative) const {
        std::filesystem::create_directories(std::filesystem::path(path_) / relative);
    }

private:
    std::string parent_;
    std::string path_;
};

}  // namespace loopwire::test
