// Atomic output files: PATH.partial renamed to PATH when complete (simpulse/app/partial_file.h).
#include <simpulse/app/partial_file.h>

#include <cstdio>
#include <filesystem>

namespace simpulse {

PartialFile::~PartialFile() {
    if (stream_.is_open()) {
        stream_.close();
        std::error_code ignored;
        std::filesystem::remove(partial_, ignored);
    }
}

bool PartialFile::open(const std::string& path) {
    path_ = path;
    partial_ = path + ".partial";
    stream_.open(partial_, std::ios::binary | std::ios::trunc);
    return static_cast<bool>(stream_);
}

bool PartialFile::commit() {
    stream_.close();
    if (!stream_) return false;
    return std::rename(partial_.c_str(), path_.c_str()) == 0;
}

bool write_file_atomically(const std::string& path, const std::string& text) {
    PartialFile file;
    if (!file.open(path)) return false;
    file.stream() << text;
    return file.commit();
}

}  // namespace simpulse
