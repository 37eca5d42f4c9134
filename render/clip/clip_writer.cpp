#include "render/clip/clip_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "render/clip/writers.hpp"
#include "spheretest/atomic_file.hpp"

namespace st::clip {

std::optional<ClipFormat> formatForPath(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".gif") return ClipFormat::Gif;
  if (extension == ".mp4") return ClipFormat::Mp4;
  if (extension == ".webm") return ClipFormat::WebM;
  return std::nullopt;
}

const char* formatName(ClipFormat format) {
  switch (format) {
    case ClipFormat::Gif:
      return "GIF";
    case ClipFormat::Mp4:
      return "MP4";
    case ClipFormat::WebM:
      return "WebM";
  }
  return "?";
}

const char* extensionOf(ClipFormat format) {
  switch (format) {
    case ClipFormat::Gif:
      return ".gif";
    case ClipFormat::Mp4:
      return ".mp4";
    case ClipFormat::WebM:
      return ".webm";
  }
  return "";
}

std::string encoderFor(ClipFormat format) {
  if (format == ClipFormat::Gif) return "giflib";
  const std::string name = detail::videoEncoderName(format);
  if (name == "libx264") return "H.264 (libx264)";
  if (name == "mpeg4") return "MPEG-4 part 2 (FFmpeg's mpeg4)";
  if (name == "libvpx-vp9") return "VP9 (libvpx-vp9)";
  if (name == "libvpx") return "VP8 (libvpx)";
  return name;
}

FpsRange fpsRange(ClipFormat format) {
  if (format == ClipFormat::Gif) return {1.0, 50.0, 20.0};
  return {1.0, 120.0, 30.0};
}

std::string whyNotRecordable(const std::string& path) {
  const std::optional<ClipFormat> format = formatForPath(path);
  if (!format) return "unknown clip format; the file name must end in .gif, .mp4 or .webm";
  if (encoderFor(*format).empty())
    return std::string("this FFmpeg has no encoder for ") + formatName(*format) + " (try .gif)";
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  // A clip is always renamed into place, which would replace a device or pipe rather than write to it.
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
      !std::filesystem::is_directory(status))
    return "it is not a regular file";
  return whyNotWritable(path);
}

ClipSize clipSizeFor(ClipFormat format, int width, int height) {
  const int limit = format == ClipFormat::Gif ? 800 : 1920;
  ClipSize size{std::max(width, 1), std::max(height, 1)};
  if (size.width > limit) {
    size.height = std::max(1, static_cast<int>(std::lround(double(size.height) * limit / size.width)));
    size.width = limit;
  }
  if (format != ClipFormat::Gif) {
    size.width = std::max(2, size.width & ~1);
    size.height = std::max(2, size.height & ~1);
  }
  return size;
}

namespace detail {

const std::uint8_t* ScalerInput::copy(std::span<const std::uint8_t> rgb, std::size_t rowBytes) {
  // A spare row and 64 bytes more (FFmpeg's padding for codec input) cover the widest read past the end.
  bytes_.resize(rgb.size() + rowBytes + 64);
  std::copy(rgb.begin(), rgb.end(), bytes_.begin());
  return bytes_.data();
}

TemporaryFile::~TemporaryFile() {
  if (committed_) return;
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void TemporaryFile::commit(const std::string& target) {
  try {
    replaceWithTemporary(path_, target);
  } catch (const std::runtime_error& failure) {
    throw ClipError(failure.what());
  }
  committed_ = true;
}

}  // namespace detail

std::unique_ptr<ClipWriter> openClip(const std::string& path, int width, int height, double fps) {
  if (const std::string why = whyNotRecordable(path); !why.empty())
    throw ClipError("cannot record '" + path + "': " + why);
  if (width <= 0 || height <= 0) throw ClipError("cannot record '" + path + "': the frames have no pixels");
  const ClipFormat format = *formatForPath(path);
  const FpsRange range = fpsRange(format);
  if (!(fps >= range.min && fps <= range.max))
    throw ClipError("cannot record '" + path + "': the frame rate is outside " + formatName(format) +
                    "'s range");
  ClipInfo info;
  info.format = format;
  info.encoder = encoderFor(format);
  info.frameSize = {width, height};
  info.size = clipSizeFor(format, width, height);
  info.fps = fps;
  const std::string temporary = temporaryPathFor(path);
  if (format == ClipFormat::Gif) return detail::openGifWriter(path, temporary, info);
  return detail::openVideoWriter(path, temporary, info);
}

}  // namespace st::clip
