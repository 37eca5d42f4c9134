#pragma once
/// \file The writers behind openClip(), one per library (private to the clip library).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "render/clip/clip_writer.hpp"

namespace st::clip::detail {

/// A clip's temporary file, removed when the guard goes unless the clip was renamed into place.
class TemporaryFile {
 public:
  /// Guards `path` (nothing is created here).
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile();
  /// Renames the file over `target` (atomically, see st::replaceWithTemporary). Throws ClipError.
  void commit(const std::string& target);
  /// The temporary's path.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool committed_ = false;
};

/// A frame copied to where libswscale may read it: its vector code reads a little past the end of the
/// last row, which must not run off the end of an allocation (it does under ThreadSanitizer's allocator).
class ScalerInput {
 public:
  /// Copies `rgb` (rows of `rowBytes` bytes) and returns the copy, followed by a spare row.
  const std::uint8_t* copy(std::span<const std::uint8_t> rgb, std::size_t rowBytes);

 private:
  std::vector<std::uint8_t> bytes_;
};

/// A GIF written with giflib to `temporary`, renamed over `path` by finish().
std::unique_ptr<ClipWriter> openGifWriter(const std::string& path, const std::string& temporary,
                                          ClipInfo info);

/// An MP4 or WebM written with libavformat and libavcodec to `temporary`, renamed over `path` by finish().
std::unique_ptr<ClipWriter> openVideoWriter(const std::string& path, const std::string& temporary,
                                            ClipInfo info);

/// The name libavcodec knows the format's encoder by ("libx264", "mpeg4", "libvpx-vp9", "libvpx"), or ""
/// when it has none; the GIF writer needs none.
std::string videoEncoderName(ClipFormat format);

}  // namespace st::clip::detail
