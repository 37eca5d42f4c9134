#include "spheretest/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace st {
namespace {

namespace fs = std::filesystem;

fs::path directoryOf(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

bool isSpecialFile(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  return !error && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

}  // namespace

std::string whyNotWritable(const std::string& path) {
  if (path.empty()) return "the path is empty";
  std::error_code error;
  const fs::path target(path);
  const fs::file_status status = fs::status(target, error);
  if (fs::is_directory(status)) return "it is a directory";
  if (fs::exists(status)) {
    if (::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
    if (!fs::is_regular_file(status)) return "";  // a device or pipe: written directly
  }
  const fs::path directory = directoryOf(target);
  const fs::file_status dirStatus = fs::status(directory, error);
  if (!fs::exists(dirStatus)) return "directory '" + directory.string() + "' does not exist";
  if (!fs::is_directory(dirStatus)) return directory.string() + " is not a directory";
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    return "directory '" + directory.string() + "': " + std::strerror(errno);
  return "";
}

void writeFileAtomically(const std::string& path, std::string_view content) {
  const fs::path target(path);
  if (isSpecialFile(target)) {
    std::ofstream out(target, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    return;
  }
  const std::string temporary = temporaryPathFor(path);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw std::runtime_error("failed writing '" + path + "'");
    }
  }
  replaceWithTemporary(temporary, path);
}

std::string temporaryPathFor(const std::string& path) {
  const fs::path target(path);
  std::string name = ".";
  name += target.filename().string();
  name += ".tmp-";
  name += std::to_string(::getpid());
  return (directoryOf(target) / name).string();
}

void replaceWithTemporary(const std::string& temporary, const std::string& path) {
  const fs::path target(path);
  std::error_code error;
  // A replaced file keeps its permissions: the temporary was created with the default ones.
  const fs::file_status old = fs::status(target, error);
  if (!error && fs::is_regular_file(old)) fs::permissions(temporary, old.permissions(), error);
  error.clear();
  fs::rename(temporary, target, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot write '" + path + "': " + error.message());
  }
}

}  // namespace st
