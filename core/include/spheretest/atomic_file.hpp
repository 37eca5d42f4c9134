#pragma once
/// \file
/// Writing a whole file so that an interrupted program never leaves half of it behind.

#include <string>
#include <string_view>

namespace st {

/// Writes `content` to `path` through a temporary file in the same directory, renamed over `path` once
/// complete: readers see the old file or the new one, never a part. Devices and pipes (e.g. /dev/null,
/// /dev/stdout) are written directly, as renaming over them would replace them. Throws std::runtime_error
/// naming the path when it cannot be written.
void writeFileAtomically(const std::string& path, std::string_view content);

/// Why `path` cannot be written as a new or replaced file (it is a directory, its directory is missing or
/// not writable, or it is a read-only file), or an empty string when it can. Checks only, writes nothing.
std::string whyNotWritable(const std::string& path);

/// The temporary a file written piece by piece goes to before replaceWithTemporary() renames it over
/// `path`: a hidden name in the same directory (so the rename is atomic), unique to this process.
std::string temporaryPathFor(const std::string& path);

/// Renames the finished `temporary` over `path`; a replaced file keeps its permissions. On failure removes
/// the temporary and throws std::runtime_error naming `path`.
void replaceWithTemporary(const std::string& temporary, const std::string& path);

}  // namespace st
