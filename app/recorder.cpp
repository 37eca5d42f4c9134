#include "recorder.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <utility>
#include <vector>

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "render/clip/clip_writer.hpp"
#include "render/screenshot.hpp"

namespace st::app {
namespace {

// Frames read but not yet encoded; beyond this the window waits for the encoder.
constexpr std::size_t kQueuedFrames = 4;
constexpr clip::ClipFormat kFormats[] = {clip::ClipFormat::Gif, clip::ClipFormat::Mp4,
                                         clip::ClipFormat::WebM};

std::string fileName(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Renders `lists` of `data` only.
void renderLists(const ImDrawData& data, std::vector<ImDrawList*>& lists) {
  ImDrawData part = data;
  part.CmdLists = lists.data();
  part.CmdListsCount = static_cast<int>(lists.size());
  part.TotalVtxCount = part.TotalIdxCount = 0;
  for (const ImDrawList* list : lists) {
    part.TotalVtxCount += list->VtxBuffer.Size;
    part.TotalIdxCount += list->IdxBuffer.Size;
  }
  ImGui_ImplOpenGL3_RenderDrawData(&part);
}

}  // namespace

// What the window's thread and the encoder share.
struct Recorder::Shared {
  std::mutex mutex;
  std::condition_variable changed;
  std::unique_ptr<clip::ClipWriter> writer;
  std::deque<std::vector<std::uint8_t>> queue;
  std::vector<std::vector<std::uint8_t>> spare;  // buffers the encoder is done with, for the next frames
  bool endOfFrames = false;
  bool abandon = false;
  bool done = false;
  int encoded = 0;
  std::string error;

  void encodeAll() {
    std::unique_lock lock(mutex);
    while (true) {
      changed.wait(lock, [&] { return abandon || endOfFrames || !queue.empty(); });
      if (abandon) return;
      if (queue.empty()) break;
      std::vector<std::uint8_t> frame = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      try {
        writer->addFrame(frame);
      } catch (const std::exception& failure) {  // a ClipError, or out of memory
        lock.lock();
        error = failure.what();
        done = true;
        changed.notify_all();
        return;
      }
      lock.lock();
      ++encoded;
      spare.push_back(std::move(frame));
      changed.notify_all();
    }
    lock.unlock();
    std::string failed;
    try {
      writer->finish();
    } catch (const std::exception& failure) {
      failed = failure.what();
    }
    lock.lock();
    error = failed;
    done = true;
    changed.notify_all();
  }
};

Recorder::Recorder() : shared_(std::make_unique<Shared>()) {}

Recorder::~Recorder() {
  if (!worker_.joinable()) return;
  if (fromMenu_) {
    // The window was closed while a clip from the menu was being made: the frames so far are kept.
    stop();
    join();
    std::cerr << "spheretest: " << resultLine() << "\n";
    return;
  }
  {
    const std::lock_guard lock(shared_->mutex);
    shared_->abandon = true;
  }
  shared_->changed.notify_all();
  worker_.join();
}

std::string Recorder::start(const std::string& path, int frames, double fps, int width, int height) {
  if (busy()) return "a clip is being recorded already";
  if (frames < 1) return "a clip needs at least one frame";
  std::unique_ptr<clip::ClipWriter> writer;
  try {
    writer = clip::openClip(path, width, height, fps);
  } catch (const clip::ClipError& failure) {
    return failure.what();
  }
  const clip::ClipInfo& info = writer->info();
  char text[160];
  std::snprintf(text, sizeof text, "%dx%d %s at %.3g fps, %s", info.size.width, info.size.height,
                clip::formatName(info.format), info.fps, info.encoder.c_str());
  description_ = text;
  shared_ = std::make_unique<Shared>();
  shared_->writer = std::move(writer);
  path_ = path;
  stopReason_.clear();
  width_ = width;
  height_ = height;
  captured_ = 0;
  total_ = frames;
  startFrame_ = ImGui::GetFrameCount();
  capturing_ = true;
  fromMenu_ = false;
  worker_ = std::thread([shared = shared_.get()] { shared->encodeAll(); });
  return "";
}

void Recorder::stop() {
  if (!capturing_) return;
  if (captured_ == 0) {
    // Nothing to encode: the clip is dropped rather than written empty.
    {
      const std::lock_guard lock(shared_->mutex);
      shared_->abandon = true;
      shared_->done = true;
      shared_->error = "recording stopped before its first frame: nothing written";
    }
    shared_->changed.notify_all();
    capturing_ = false;
    return;
  }
  total_ = captured_;
  endCapture();
}

void Recorder::endCapture() {
  capturing_ = false;
  {
    const std::lock_guard lock(shared_->mutex);
    shared_->endOfFrames = true;
  }
  shared_->changed.notify_all();
}

int Recorder::encoded() const {
  const std::lock_guard lock(shared_->mutex);
  return shared_->encoded;
}

void Recorder::renderUi(ImDrawData* data, int width, int height) {
  // The Record menu stays out of the clip: while it is open (to stop, say) no frame is taken.
  const int frame = ImGui::GetFrameCount();
  const bool recording = capturing_ && frame > startFrame_ && frame != menuOpenFrame_;
  if (!recording) {
    ImGui_ImplOpenGL3_RenderDrawData(data);
    progressList_ = nullptr;
    return;
  }
  std::vector<ImDrawList*> window, after;
  for (int i = 0; i < data->CmdListsCount; ++i)
    (data->CmdLists[i] == progressList_ ? after : window).push_back(data->CmdLists[i]);
  renderLists(*data, window);
  capture(width, height);
  if (!after.empty()) renderLists(*data, after);
  progressList_ = nullptr;
}

void Recorder::capture(int width, int height) {
  if (width != width_ || height != height_) {
    // The clip's frames all have its first frame's size.
    stopReason_ = "the window changed size, so the clip ends there";
    stop();
    return;
  }
  std::vector<std::uint8_t> frame;
  {
    const std::lock_guard lock(shared_->mutex);
    if (!shared_->spare.empty()) {
      frame = std::move(shared_->spare.back());
      shared_->spare.pop_back();
    }
  }
  render::readBackBuffer(width, height, frame);
  {
    std::unique_lock lock(shared_->mutex);
    shared_->changed.wait(lock, [&] { return shared_->queue.size() < kQueuedFrames || shared_->done; });
    if (shared_->done) {  // the encoder failed: its error is the result
      capturing_ = false;
      return;
    }
    shared_->queue.push_back(std::move(frame));
  }
  shared_->changed.notify_all();
  if (++captured_ == total_) endCapture();
}

void Recorder::join() {
  if (worker_.joinable()) worker_.join();
}

std::string Recorder::resultLine() const {
  if (!shared_->error.empty()) return shared_->error;
  std::string line = "saved " + path_ + ": " + std::to_string(captured_) + " frames, " + description_;
  if (!stopReason_.empty()) line += "; " + stopReason_;
  return line;
}

std::optional<std::string> Recorder::takeResult() {
  if (!failedStart_.empty()) return std::exchange(failedStart_, std::string());
  if (!worker_.joinable()) return std::nullopt;
  {
    const std::lock_guard lock(shared_->mutex);
    if (!shared_->done) return std::nullopt;
  }
  join();
  return resultLine();
}

std::string Recorder::waitUntilWritten(ProgressLine& progress) {
  if (!worker_.joinable()) return shared_->error;
  const auto total = static_cast<std::size_t>(total_);
  std::unique_lock lock(shared_->mutex);
  while (!shared_->done) {
    const auto encoded = static_cast<std::size_t>(shared_->encoded);
    lock.unlock();
    progress.update(total + encoded, 2 * total,
                    "encoding " + std::to_string(encoded) + "/" + std::to_string(total));
    lock.lock();
    // The encoder may have moved on (or finished) while the lock was let go for the progress line: wait
    // only while nothing changed since, or its last notification would be missed.
    shared_->changed.wait(lock, [&] { return shared_->done || std::size_t(shared_->encoded) != encoded; });
  }
  lock.unlock();
  join();
  return shared_->error;
}

void Recorder::drawProgress() {
  if (!busy()) return;
  const int encodedFrames = encoded();
  char text[256];
  if (capturing_) {
    // This frame's number: the box is drawn before the frame is read.
    std::snprintf(text, sizeof text, "recording %s: frame %d of %d", fileName(path_).c_str(),
                  std::min(captured_ + 1, total_), total_);
  } else {
    std::snprintf(text, sizeof text, "encoding %s: frame %d of %d", fileName(path_).c_str(), encodedFrames,
                  total_);
  }
  const float done = total_ > 0 ? float(capturing_ ? captured_ : encodedFrames) / float(total_) : 0.0f;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  progressList_ = draw;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 textSize = ImGui::CalcTextSize(text);
  const float pad = 8.0f, barHeight = 5.0f;
  const ImVec2 size(std::max(textSize.x, 240.0f) + 2 * pad, textSize.y + barHeight + 3 * pad);
  const ImVec2 min(0.5f * (display.x - size.x), display.y - size.y - 12.0f);
  const ImVec2 max(min.x + size.x, min.y + size.y);
  draw->AddRectFilled(min, max, IM_COL32(20, 20, 24, 235), 5.0f);
  draw->AddRect(min, max, capturing_ ? IM_COL32(230, 60, 60, 255) : IM_COL32(150, 150, 160, 255), 5.0f);
  draw->AddText(ImVec2(min.x + pad, min.y + pad), IM_COL32(235, 235, 235, 255), text);
  const ImVec2 barMin(min.x + pad, max.y - pad - barHeight);
  const ImVec2 barMax(max.x - pad, max.y - pad);
  draw->AddRectFilled(barMin, barMax, IM_COL32(70, 70, 80, 255));
  draw->AddRectFilled(barMin, ImVec2(barMin.x + (barMax.x - barMin.x) * done, barMax.y),
                      capturing_ ? IM_COL32(230, 60, 60, 255) : IM_COL32(200, 200, 210, 255));
}

void Recorder::drawMenu(int width, int height) {
  if (busy()) {
    if (capturing_) {
      menuOpenFrame_ = ImGui::GetFrameCount();
      ImGui::Text("recorded %d of %d frames", captured_, total_);
      ImGui::TextDisabled("(not while this menu is open)");
      if (ImGui::MenuItem("stop: keep the frames so far")) stop();
    } else {
      ImGui::Text("encoded %d of %d frames", encoded(), total_);
    }
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const bool offered = !clip::encoderFor(kFormats[i]).empty();
    if (!offered) ImGui::BeginDisabled();
    ImGui::RadioButton(clip::formatName(kFormats[i]), &format_, i);
    if (!offered) ImGui::EndDisabled();
    if (i < 2) ImGui::SameLine();
  }
  const clip::ClipFormat format = kFormats[format_];
  const clip::FpsRange range = clip::fpsRange(format);
  ImGui::SliderInt("seconds", &seconds_, 1, 60);
  ImGui::SliderInt("frames per second", &fps_[std::size_t(format_)], int(range.min), int(range.max));
  const int fps = fps_[std::size_t(format_)];
  const clip::ClipSize size = clip::clipSizeFor(format, width, height);
  ImGui::TextDisabled("%d frames, %dx%d, %s, into the current directory", seconds_ * fps, size.width,
                      size.height, clip::encoderFor(format).c_str());
  ImGui::TextDisabled("one window frame per clip frame: at 1 step per frame it plays at %.2gx", fps / 60.0);
  if (ImGui::MenuItem("start recording")) {
    // Beside F12's screenshots: the current directory, named by the time.
    const std::time_t now = std::time(nullptr);
    char name[64];
    std::strftime(name, sizeof name, "spheretest-%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string path = std::string(name) + clip::extensionOf(format);
    failedStart_ = start(path, seconds_ * fps, fps, width, height);
    fromMenu_ = failedStart_.empty();
  }
}

RecordRun::RecordRun(const RunConfig& config, Recorder& recorder)
    : config_(config),
      recorder_(recorder),
      progress_(std::cerr, ProgressLine::stderrIsTerminal(), "spheretest") {}

std::optional<int> RecordRun::beforeFrame(int frame, int width, int height) {
  if (started_ || frame < kSettleFrames) return std::nullopt;
  started_ = true;
  if (const std::string error =
          recorder_.start(*config_.recordPath, config_.frames, config_.recordFps, width, height);
      !error.empty()) {
    std::cerr << "spheretest: error: --record: " << error << "\n";
    return 1;
  }
  return std::nullopt;
}

std::optional<int> RecordRun::afterFrame() {
  if (!started_) return std::nullopt;
  const auto total = static_cast<std::size_t>(recorder_.total());
  if (recorder_.capturing()) {
    const auto captured = static_cast<std::size_t>(recorder_.captured());
    progress_.update(captured + static_cast<std::size_t>(recorder_.encoded()), 2 * total,
                     "recorded " + std::to_string(captured) + "/" + std::to_string(total));
    return std::nullopt;
  }
  const std::string error = recorder_.waitUntilWritten(progress_);
  progress_.finish();
  if (!error.empty()) {
    std::cerr << "spheretest: error: " << error << "\n";
    return 1;
  }
  std::printf("recorded %s: %d frames, %s\n", config_.recordPath->c_str(), recorder_.captured(),
              recorder_.description().c_str());
  return 0;
}

}  // namespace st::app
