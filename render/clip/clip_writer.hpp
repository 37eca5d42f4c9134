#pragma once
/// \file Recording what the window shows as a clip: an animated GIF (giflib) for slides, or an MP4 or WebM
/// video (FFmpeg's libavformat, libavcodec and libswscale). The writers take plain RGB frames and know
/// nothing of OpenGL; a clip is written to a temporary beside its path and renamed over it when finished.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace st::clip {

/// The kinds of clip, picked by the file's extension.
enum class ClipFormat : std::uint8_t { Gif, Mp4, WebM };

/// A clip that could not be opened, encoded or written; what() says why.
class ClipError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The format a path's extension names (.gif, .mp4, .webm, in any case), or none.
std::optional<ClipFormat> formatForPath(const std::string& path);

/// "GIF", "MP4" or "WebM".
const char* formatName(ClipFormat format);

/// ".gif", ".mp4" or ".webm".
const char* extensionOf(ClipFormat format);

/// The codec and encoder a format uses on this system ("giflib", "H.264 (libx264)", "MPEG-4 part 2
/// (FFmpeg's mpeg4)", "VP9 (libvpx-vp9)", "VP8 (libvpx)"), or "" when libavcodec offers none for it.
std::string encoderFor(ClipFormat format);

/// Frame rates a format accepts, and the one it uses when none is given.
struct FpsRange {
  double min = 1.0;          ///< slowest
  double max = 60.0;         ///< fastest
  double defaultFps = 30.0;  ///< when none is asked for
};

/// The frame rates of `format`: GIF 1..50 (its delays are whole hundredths of a second, and viewers slow
/// shorter ones down), default 20; video 1..120, default 30.
FpsRange fpsRange(ClipFormat format);

/// Why `path` cannot take a clip (an unknown extension, no encoder for the format, or a path
/// st::whyNotWritable refuses), or "" when it can. Checks only, writes nothing.
std::string whyNotRecordable(const std::string& path);

/// Width and height of a clip, in pixels.
struct ClipSize {
  int width = 0;   ///< pixels across
  int height = 0;  ///< pixels down
};

/// The size of a clip of frames `width` x `height`: a GIF at most 800 pixels wide (larger frames make files
/// too big for slides), a video at most 1920 wide with even sides (4:2:0 chroma needs them); the aspect
/// ratio is kept.
ClipSize clipSizeFor(ClipFormat format, int width, int height);

/// What a clip being written is.
struct ClipInfo {
  ClipFormat format = ClipFormat::Gif;  ///< container and codec family
  std::string encoder;                  ///< as encoderFor() names it
  ClipSize frameSize;                   ///< size of the frames given
  ClipSize size;                        ///< size of the clip
  double fps = 0.0;                     ///< frames per second it plays at (a GIF's after rounding its delay)
};

/// Writes one clip frame by frame. Not thread-safe: one thread adds the frames and finishes.
class ClipWriter {
 public:
  virtual ~ClipWriter() = default;
  /// Adds a frame of info().frameSize: width x height x 3 bytes of RGB, rows top first. Throws ClipError.
  virtual void addFrame(std::span<const std::uint8_t> rgb) = 0;
  /// Flushes the encoder, closes the file and renames it over the path. Throws ClipError.
  virtual void finish() = 0;
  /// What is being written.
  const ClipInfo& info() const { return info_; }
  /// Frames added so far.
  int frames() const { return frames_; }

 protected:
  ClipInfo info_;   ///< filled in by each writer
  int frames_ = 0;  ///< counted by each writer
};

/// Opens a clip of frames `width` x `height` playing at `fps` (within fpsRange()), in the format of the
/// path's extension. Everything goes to a temporary beside `path`; a writer destroyed before finish()
/// removes it, so `path` is never left half written. Throws ClipError.
std::unique_ptr<ClipWriter> openClip(const std::string& path, int width, int height, double fps);

}  // namespace st::clip
