// Output files written atomically: the text goes to PATH.partial, which is renamed to PATH once complete, so
// a killed process never leaves a truncated file under the name of a complete one (`simpulse run --out`,
// `--trajectory`, the sweep's point files and tables).
#pragma once

#include <fstream>
#include <string>

namespace simpulse {

// An output file written under PATH.partial and renamed to PATH by commit() once complete. Destroyed without
// commit (an early return), it removes the partial file; a killed process leaves only PATH.partial.
class PartialFile {
  public:
    PartialFile() = default;
    PartialFile(const PartialFile&) = delete;
    PartialFile& operator=(const PartialFile&) = delete;
    ~PartialFile();
    // Opens PATH.partial for writing (truncating a partial file a killed process left); false (errno set) if
    // it cannot be opened.
    bool open(const std::string& path);
    std::ofstream& stream() { return stream_; }
    // Flushes, closes and renames; false (errno set) if writing or renaming failed.
    bool commit();

  private:
    std::string path_, partial_;
    std::ofstream stream_;
};

// Writes `text` to `path` through a PartialFile; false (errno set) on failure.
bool write_file_atomically(const std::string& path, const std::string& text);

}  // namespace simpulse
