#pragma once
/// \file Recording the window as a clip (GIF, MP4 or WebM; see render/clip): the Record menu, the frames
/// read back from the window, a worker thread that encodes them, and the progress shown meanwhile; and the
/// command line's --record run.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "progress.hpp"
#include "run_config.hpp"

struct ImDrawData;
struct ImDrawList;

namespace st::app {

/// Records the frames the window draws. Each one is read from the back buffer once the window is drawn and
/// before the recorder's own progress box is, so a clip never shows the box. A worker thread encodes the
/// frames a few behind; when it falls further behind, the window waits for it rather than drop a frame, so
/// a clip holds every frame of its stretch of the run.
class Recorder {
 public:
  Recorder();
  /// Ends a clip still in progress: one started from the menu keeps the frames so far (and says where it
  /// went on stderr); one from the command line is abandoned, leaving nothing at its path.
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Starts a clip of the next `frames` frames of `width` x `height` pixels at `path`, playing at `fps`;
  /// returns "" or why it cannot (all checked before the first frame). The frame being drawn while this is
  /// called is not part of it.
  std::string start(const std::string& path, int frames, double fps, int width, int height);
  /// Whether frames are being captured.
  bool capturing() const { return capturing_; }
  /// Whether a clip is being captured or encoded.
  bool busy() const { return worker_.joinable(); }
  /// Ends the capture early: the frames captured so far make the clip.
  void stop();

  /// Renders ImGui's draw data, capturing the frame first while capturing (in place of
  /// ImGui_ImplOpenGL3_RenderDrawData; everything on ImGui's foreground list is drawn after the capture).
  void renderUi(ImDrawData* data, int width, int height);
  /// Draws the progress box on ImGui's foreground list while busy (between NewFrame and Render).
  void drawProgress();
  /// The Record menu's items: format, length, frame rate, start and stop.
  void drawMenu(int width, int height);

  /// Once a clip is written or has failed: "saved PATH (...)" or what went wrong, for the status line.
  std::optional<std::string> takeResult();
  /// Waits until the clip is written, showing the encoding on `progress`; returns "" or what went wrong.
  std::string waitUntilWritten(ProgressLine& progress);

  /// Frames captured into the current or last clip.
  int captured() const { return captured_; }
  /// Frames the current or last clip was started for.
  int total() const { return total_; }
  /// Frames encoded so far.
  int encoded() const;
  /// "1280x800 MP4 at 30 fps, H.264 (libx264)": what the current or last clip is.
  const std::string& description() const { return description_; }

 private:
  struct Shared;

  void capture(int width, int height);
  void endCapture();
  void join();
  std::string resultLine() const;

  std::unique_ptr<Shared> shared_;
  std::thread worker_;
  std::string path_;
  std::string description_;
  std::string stopReason_;
  std::string failedStart_;  // why the menu's last start failed, for takeResult()
  bool capturing_ = false;
  bool fromMenu_ = false;   // started from the Record menu rather than by --record
  int startFrame_ = 0;      // ImGui's frame count when the clip was started
  int menuOpenFrame_ = -1;  // the last frame the Record menu was open in
  int width_ = 0;
  int height_ = 0;
  int captured_ = 0;
  int total_ = 0;
  ImDrawList* progressList_ = nullptr;  // where drawProgress() drew this frame
  // The Record menu's choices.
  int format_ = 0;
  int seconds_ = 5;
  std::array<int, 3> fps_{20, 30, 30};
};

/// A --record run: starts the clip once the panels are placed, reports on stderr, and ends the run when the
/// clip is written.
class RecordRun {
 public:
  /// Records `config.frames` frames to `config.recordPath` with `recorder`.
  RecordRun(const RunConfig& config, Recorder& recorder);
  /// Before frame `frame` (0 first) is drawn; an exit code when the clip cannot start.
  std::optional<int> beforeFrame(int frame, int width, int height);
  /// After each frame is drawn: once every frame is captured, waits for the clip; then the exit code.
  std::optional<int> afterFrame();

  /// Frames drawn before the clip starts: the first places the panels, the second shows them placed.
  static constexpr int kSettleFrames = 2;

 private:
  const RunConfig& config_;
  Recorder& recorder_;
  ProgressLine progress_;
  bool started_ = false;
};

}  // namespace st::app
