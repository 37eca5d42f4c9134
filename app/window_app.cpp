// The interactive window: SDL2 + OpenGL 3.3 core + Dear ImGui. This file owns the frame loop; everything
// shown comes from the demo parts in ui/ (panels and overlays that register themselves) and the renderers
// in render/.

#include "window_app.hpp"

#include <SDL.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>

#include "recorder.hpp"
#include "render/camera.hpp"
#include "render/circle_renderer.hpp"
#include "render/free_area.hpp"
#include "render/gl.hpp"
#include "render/palette.hpp"
#include "render/screenshot.hpp"
#include "render/shape_batch.hpp"
#include "render/world_image.hpp"
#include "soak.hpp"
#include "ui/model/demo_model.hpp"
#include "ui/model/settings.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::app {
namespace {

using ui::Phase;

constexpr int kDefaultWidth = 1280;
constexpr int kDefaultHeight = 800;
constexpr float kMinUiScale = 0.75f;
constexpr float kMaxUiScale = 3.0f;
constexpr float kUiScales[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
constexpr float kLessonWidth = 400.0f;  // the lesson panel's width at scale 1 (its placement's)

// ---------------------------------------------------------------------------------------------------------
// SDL window and GL context, released in the right order whatever happens in between
// ---------------------------------------------------------------------------------------------------------

struct SdlWindow {
  SDL_Window* window = nullptr;
  SDL_GLContext context = nullptr;

  SdlWindow() = default;
  SdlWindow(const SdlWindow&) = delete;
  SdlWindow& operator=(const SdlWindow&) = delete;
  ~SdlWindow() {
    if (context != nullptr) SDL_GL_DeleteContext(context);
    if (window != nullptr) SDL_DestroyWindow(window);
    SDL_Quit();
  }

  /// Opens the window with a 3.3 core context; false (printing nothing) when there is no usable display.
  bool open(int width, int height, bool maximized) {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) return false;
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    if (maximized) flags |= SDL_WINDOW_MAXIMIZED;
    window =
        SDL_CreateWindow("spheretest", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height, flags);
    if (window == nullptr) return false;
    context = SDL_GL_CreateContext(window);
    if (context == nullptr) return false;
    SDL_GL_MakeCurrent(window, context);
    return render::gl::load([](const char* name) { return SDL_GL_GetProcAddress(name); })[0] == '\0';
  }
};

/// ImGui's context and backends, shut down before the GL context goes.
struct ImGuiSession {
  bool started = false;
  ImGuiSession() = default;
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
  ~ImGuiSession() {
    if (!started) return;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
  }
};

std::string timestampedScreenshotName() {
  const std::time_t now = std::time(nullptr);
  char name[64];
  std::strftime(name, sizeof name, "spheretest-%Y%m%d-%H%M%S.png", std::localtime(&now));
  return name;
}

std::string partPrefix(const ui::PartInfo& info) {
  std::string prefix = "part.";
  prefix.append(info.name).push_back('.');
  return prefix;
}

std::string pickStartStructure(const RunConfig& config) {
  // Brute force has no nodes to show, so with several structures named (the default is all of them) the
  // window opens on the first one that has.
  if (config.structures.empty()) return appRegistry().all().front().name;
  for (const std::string& name : config.structures) {
    if (config.structures.size() == 1 || name != "brute") return name;
  }
  return config.structures.front();
}

// ---------------------------------------------------------------------------------------------------------
// The app
// ---------------------------------------------------------------------------------------------------------

class WindowApp {
 public:
  WindowApp(const RunConfig& config, SdlWindow& sdl, ui::DemoModel& model, bool persist,
            std::string settingsDir, bool firstStart)
      : config_(config),
        sdl_(sdl),
        model_(model),
        persist_(persist),
        firstStart_(firstStart),
        settingsDir_(std::move(settingsDir)),
        parts_(ui::createParts()),
        ctx_{model_, camera_, view_, parts_} {}

  /// Sets up ImGui and the renderers; returns "" or the error.
  std::string init(ImGuiSession& imgui, const ui::Settings& settings);
  /// Runs until closed (or until the screenshot is saved); returns the exit code.
  int run();
  /// Writes the settings (only when persisting).
  void saveSettings() const;

 private:
  void handleEvent(const SDL_Event& event, bool& quit);
  void handleKey(const SDL_Keysym& key);
  bool dispatchMouse(const ui::WorldMouse& mouse);
  ui::WorldMouse mouseAt(float windowX, float windowY) const;
  bool mouseOverUi(float windowX, float windowY) const;
  void applyRunConfigQuery();
  void drawWorld();
  void drawUi();
  void drawMenuBar();
  /// Draws the open panels (in the presentation view, only the lesson's, beside the world).
  void drawPanels();
  /// Loads the fonts at the view's UI scale and scales the style; the panels go back to their places.
  void applyUiScale();
  void syncViewport();
  /// Fits the world (or the part a lesson step asked for) into the part of the window the panels leave free
  /// (all of it before they are drawn).
  void fitWorld();
  std::string takeScreenshot(const std::string& path);

  const RunConfig& config_;
  SdlWindow& sdl_;
  ui::DemoModel& model_;
  bool persist_;
  bool firstStart_;  // no settings were saved yet: the lessons are offered
  std::string settingsDir_;
  std::string iniPath_;
  render::Camera camera_;
  ui::ViewOptions view_;
  std::vector<ui::PartSlot> parts_;
  ui::DemoContext ctx_;
  Recorder recorder_;
  render::CircleRenderer circles_;
  render::ShapeRenderer shapes_;
  // One renderer per layer: each has its own texture or buffer, so that filling one never waits for a draw
  // the software rasterizer has not done yet from another.
  render::WorldImageRenderer underlay_;
  render::WorldImageRenderer overlay_;
  render::CircleRenderer marks_;
  ui::WorldCanvas canvas_;
  std::vector<render::CircleInstance> instances_;
  std::vector<render::CircleInstance> visibleInstances_;
  std::vector<ImVec4>
      uiRects_;  // last frame's panels and menu bar: min x, min y, max x, max y (window points)
  int drawableWidth_ = kDefaultWidth;
  int drawableHeight_ = kDefaultHeight;
  float pixelRatio_ = 1.0f;       // drawable pixels per window point (2 on high-DPI displays)
  bool fitted_ = true;            // the view still shows the fitted world, so it refits on resize
  std::optional<Box> fitTarget_;  // what fitting shows: the world, or the part a lesson step asked for
  int fitAfterUiFrames_ = 0;      // fit again after this many frames' panels are drawn (their places changed)
  bool presentShown_ = false;     // the presentation view was drawn last frame
  ImGuiStyle baseStyle_;          // the style at scale 1
  float appliedScale_ = 0.0f;     // the UI scale the fonts and style were made for
  float defaultScale_ = 1.0f;     // the scale the display's DPI gives (only another is saved)
  bool relayoutPanels_ = false;   // put every panel back at its scaled place and size on the next frame
  bool appliedVsync_ = false;
  render::CircleMode defaultCircleMode_ = render::CircleMode::Pulled;
  std::uint64_t titleGeneration_ = ~std::uint64_t{0};
  bool fontFilterSet_ = false;
  // Mouse drag in the world: which button, where it started, whether a part owns it or the camera pans.
  int dragButton_ = 0;
  float dragStartX_ = 0.0f, dragStartY_ = 0.0f;
  float lastX_ = 0.0f, lastY_ = 0.0f;
  Vec2 dragStartWorld_;
  bool dragOwnedByPart_ = false;
  bool dragMoved_ = false;
};

std::string WindowApp::init(ImGuiSession& imgui, const ui::Settings& settings) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  if (persist_) {
    iniPath_ = settingsDir_ + "/imgui.ini";
    io.IniFilename = iniPath_.c_str();
  } else {
    io.IniFilename = nullptr;  // tests and screenshots never read or write the layout
  }
  // A screenshot or clip shows the window as nobody's pointer left it: wherever the display's pointer happens
  // to be (the middle of a virtual screen), ImGui sees none, so no hover highlight or tooltip is captured.
  if (config_.scripted()) io.ConfigFlags |= ImGuiConfigFlags_NoMouse;
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 5.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.Colors[ImGuiCol_WindowBg].w = 0.92f;

  baseStyle_ = style;

  // High-DPI: the UI grows with the display's DPI unless a scale was saved (View > UI scale); screenshots
  // stay at 1 unless $SPHERETEST_UI_SCALE asks for another.
  float ddpi = 0.0f;
  if (persist_ && SDL_GetDisplayDPI(0, &ddpi, nullptr, nullptr) == 0 && ddpi > 120.0f)
    defaultScale_ = ddpi / 96.0f;
  double scale = settings.getNumber("ui.scale", defaultScale_);
  if (const char* wanted = std::getenv("SPHERETEST_UI_SCALE")) scale = std::strtod(wanted, nullptr);
  view_.uiScale =
      std::clamp(static_cast<float>(std::isfinite(scale) ? scale : 1.0), kMinUiScale, kMaxUiScale);
  applyUiScale();

  if (!ImGui_ImplSDL2_InitForOpenGL(sdl_.window, sdl_.context)) return "ImGui SDL backend failed";
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    ImGui_ImplSDL2_Shutdown();
    return "ImGui OpenGL backend failed";
  }
  imgui.started = true;

  if (std::string error = circles_.init(); !error.empty()) return error;
  if (std::string error = shapes_.init(); !error.empty()) return error;
  if (std::string error = underlay_.init(); !error.empty()) return error;
  if (std::string error = overlay_.init(); !error.empty()) return error;
  if (std::string error = marks_.init(); !error.empty()) return error;

  view_.vsync = settings.getBool("view.vsync", true) && !config_.scripted();
  view_.reproducible = config_.scripted();
  const char* renderer = reinterpret_cast<const char*>(render::gl::GetString(GL_RENDERER));
  view_.glRenderer = renderer != nullptr ? renderer : "unknown";
  view_.softwareGl = view_.glRenderer.find("llvmpipe") != std::string::npos ||
                     view_.glRenderer.find("softpipe") != std::string::npos ||
                     view_.glRenderer.find("SWR") != std::string::npos;
  defaultCircleMode_ = view_.softwareGl ? render::CircleMode::Splat : render::CircleMode::Pulled;
  view_.circleMode = static_cast<render::CircleMode>(std::clamp(
      static_cast<int>(settings.getNumber("view.circle_mode", static_cast<int>(defaultCircleMode_))), 0,
      render::kCircleModeCount - 1));
  view_.minCirclePx = static_cast<float>(settings.getNumber("view.min_circle_px", view_.minCirclePx));
  model_.speed = static_cast<float>(settings.getNumber("sim.speed", 1.0));
  ui::Settings readable = settings;
  for (ui::PartSlot& slot : parts_) {
    ui::SettingsSection section(readable, partPrefix(*slot.info));
    slot.shown = section.getBool("shown", slot.info->shownByDefault);
    slot.part->loadSettings(section);
  }
  ui::applyOpenPanelsFromEnvironment(parts_);
  if (config_.lessonPath) {
    ui::teachBoard().lessonToOpen = *config_.lessonPath;
    ui::teachBoard().lessonStep = config_.lessonStep;
  } else if (firstStart_) {
    for (ui::PartSlot& slot : parts_) {
      if (slot.info->name == ui::teach_names::kStartHere) slot.shown = true;
    }
  }
  view_.present = config_.present;
  applyRunConfigQuery();
  syncViewport();
  camera_.fit(model_.simulation().world());
  return "";
}

void WindowApp::saveSettings() const {
  if (!persist_) return;
  // Saved here rather than by ImGui at shutdown: the path string belongs to this object, which is gone by
  // then.
  ImGui::SaveIniSettingsToDisk(iniPath_.c_str());
  ImGui::GetIO().IniFilename = nullptr;
  ui::Settings settings;
  settings.load(settingsDir_ + "/settings.ini");
  int w = 0, h = 0;
  SDL_GetWindowSize(sdl_.window, &w, &h);
  const bool maximized = (SDL_GetWindowFlags(sdl_.window) & SDL_WINDOW_MAXIMIZED) != 0;
  if (!maximized) {
    settings.setNumber("window.width", w);
    settings.setNumber("window.height", h);
  }
  settings.setBool("window.maximized", maximized);
  settings.setBool("view.vsync", view_.vsync);
  // Only a mode the user picked is remembered: the default depends on the GL driver of each run.
  if (view_.circleMode != defaultCircleMode_) {
    settings.setNumber("view.circle_mode", static_cast<int>(view_.circleMode));
  } else {
    settings.erase("view.circle_mode");
  }
  settings.setNumber("view.min_circle_px", view_.minCirclePx);
  if (view_.uiScale != defaultScale_) {
    settings.setNumber("ui.scale", view_.uiScale);
  } else {
    settings.erase("ui.scale");
  }
  settings.setNumber("sim.speed", model_.speed);
  for (const ui::PartSlot& slot : parts_) {
    ui::SettingsSection section(settings, partPrefix(*slot.info));
    section.setBool("shown", slot.shown);
    slot.part->saveSettings(section);
  }
  settings.save(settingsDir_ + "/settings.ini");
}

void WindowApp::applyRunConfigQuery() {
  // --queries KIND:COUNT picks the query the window starts with; --query-size and --query-region shape it.
  ui::QueryState& q = model_.query;
  if (!config_.queryKind) return;
  const Box region = config_.queryRegion.value_or(model_.simulation().queryRegion());
  const float side = std::max(region.max.x - region.min.x, region.max.y - region.min.y);
  ui::placeQuery(q, config_.queryKind,
                 {0.5f * (region.min.x + region.max.x), 0.5f * (region.min.y + region.max.y)},
                 config_.querySize > 0.0f ? config_.querySize : 0.07f * side);
  q.nearestCount = static_cast<int>(config_.queryK);
}

// ---------------------------------------------------------------------------------------------------------
// Frame loop
// ---------------------------------------------------------------------------------------------------------

int WindowApp::run() {
  const bool screenshotRun = config_.screenshotPath.has_value();
  const int frameLimit = screenshotRun ? std::max(config_.frames, 1) : 0;
  bool quit = false;
  int frame = 0;
  std::uint64_t frameStart = ui::nowNanoseconds();
  const std::uint64_t runStart = frameStart;
  std::optional<SoakMonitor> soak;
  if (config_.soakSeconds > 0) soak.emplace(config_.soakSeconds, config_.switchEverySeconds);
  std::optional<RecordRun> recordRun;
  if (config_.recordPath) recordRun.emplace(config_, recorder_);
  while (!quit) {
    SDL_Event event;
    while (SDL_PollEvent(&event)) handleEvent(event, quit);
    syncViewport();
    if (view_.vsync != appliedVsync_ || frame == 0) {
      // Adaptive vsync first (tears instead of halving the rate on a late frame), plain vsync otherwise.
      if (!view_.vsync || SDL_GL_SetSwapInterval(-1) != 0) SDL_GL_SetSwapInterval(view_.vsync ? 1 : 0);
      appliedVsync_ = view_.vsync;
    }
    if (view_.uiScale != appliedScale_) applyUiScale();
    if (view_.present != presentShown_) {
      presentShown_ = view_.present;
      fitAfterUiFrames_ = 2;  // the panels this frame draws, then the next frame's, settle where they go
    }
    if (view_.fitRequested) {
      fitTarget_ = view_.fitBox;
      view_.fitBox.reset();
      fitWorld();
      view_.fitRequested = false;
      fitted_ = true;
    }

    ui::FrameRecord record;
    model_.advance(record);
    if (model_.generation() != titleGeneration_) {
      titleGeneration_ = model_.generation();
      // A reseed may change the world's size; a view nobody moved follows it.
      if (fitted_) fitWorld();
      const std::string title = "spheretest - " + model_.structure().name() + ", " +
                                std::to_string(model_.simulation().circles().size()) + " circles";
      SDL_SetWindowTitle(sdl_.window, title.c_str());
    }
    if (recordRun) {
      if (const std::optional<int> code = recordRun->beforeFrame(frame, drawableWidth_, drawableHeight_))
        return *code;
    }
    std::uint64_t start = ui::nowNanoseconds();
    for (ui::PartSlot& slot : parts_) slot.part->update(ctx_);
    record[Phase::Queries] = float(ui::millisecondsSince(start));
    if (view_.cameraMoved) {  // a part's view is kept, not refitted after the first frame's panels
      fitted_ = false;
      view_.cameraMoved = false;
    }

    start = ui::nowNanoseconds();
    drawWorld();
    record[Phase::Draw] = float(ui::millisecondsSince(start));

    start = ui::nowNanoseconds();
    drawUi();
    record[Phase::Ui] = float(ui::millisecondsSince(start));

    // The panels' places are known once they have been drawn: a view nobody moved fits the free part.
    if (frame == 0 && fitted_) fitWorld();
    if (fitAfterUiFrames_ > 0) {
      --fitAfterUiFrames_;
      fitWorld();
      fitted_ = true;
    }
    ++frame;
    if (screenshotRun && frame >= frameLimit) {
      const std::string error = takeScreenshot(*config_.screenshotPath);
      if (!error.empty()) {
        std::cerr << "spheretest: " << error << "\n";
        return 1;
      }
      const double seconds = ui::millisecondsSince(runStart) * 1e-3;
      const ui::FrameRecord mean = model_.timings.average(ui::FrameTimings::kCapacity);
      std::printf(
          "screenshot %s (%dx%d) after %d frames, %.1f fps overall; mean ms: simulate %.2f, update %.2f, "
          "pairs %.2f, queries %.2f, draw %.2f, ui %.2f, swap %.2f\n",
          config_.screenshotPath->c_str(), drawableWidth_, drawableHeight_, frame, double(frame) / seconds,
          double(mean[Phase::Simulate]), double(mean[Phase::Update]), double(mean[Phase::Pairs]),
          double(mean[Phase::Queries]), double(mean[Phase::Draw]), double(mean[Phase::Ui]),
          double(mean[Phase::Swap]));
      return 0;
    }
    if (soak) {
      if (const std::optional<int> code = soak->afterFrame(model_)) return *code;
    }
    if (recordRun) {
      if (const std::optional<int> code = recordRun->afterFrame()) return *code;
    }
    if (std::optional<std::string> result = recorder_.takeResult()) view_.status = std::move(*result);
    if (view_.screenshotRequested) {
      view_.screenshotRequested = false;
      const std::string path = timestampedScreenshotName();
      const std::string error = takeScreenshot(path);
      view_.status = error.empty() ? "saved " + path : error;
    }

    start = ui::nowNanoseconds();
    SDL_GL_SwapWindow(sdl_.window);
    record[Phase::Swap] = float(ui::millisecondsSince(start));
    const std::uint64_t now = ui::nowNanoseconds();
    record.frameMs = float(double(now - frameStart) * 1e-6);
    frameStart = now;
    model_.timings.push(record);
  }
  return 0;
}

std::string WindowApp::takeScreenshot(const std::string& path) {
  return render::saveBackBufferPng(path, drawableWidth_, drawableHeight_);
}

void WindowApp::syncViewport() {
  int w = 0, h = 0, windowW = 0, windowH = 0;
  SDL_GL_GetDrawableSize(sdl_.window, &w, &h);
  SDL_GetWindowSize(sdl_.window, &windowW, &windowH);
  if (w <= 0 || h <= 0) return;
  pixelRatio_ = windowW > 0 ? float(w) / float(windowW) : 1.0f;
  if (w == drawableWidth_ && h == drawableHeight_ && camera_.width() == float(w)) return;
  drawableWidth_ = w;
  drawableHeight_ = h;
  camera_.setViewport(float(w), float(h));
  if (fitted_) fitWorld();
}

void WindowApp::fitWorld() {
  std::vector<render::ScreenRect> panels;
  for (const ImVec4& r : uiRects_)
    panels.push_back({r.x * pixelRatio_, r.y * pixelRatio_, r.z * pixelRatio_, r.w * pixelRatio_});
  const Box world = fitTarget_.value_or(model_.simulation().world());
  const render::ScreenRect area = render::freeAreaFor({0.0f, 0.0f, camera_.width(), camera_.height()}, panels,
                                                      world.max.x - world.min.x, world.max.y - world.min.y);
  camera_.fitInto(world, area.x0, area.y0, area.x1, area.y1);
}

// ---------------------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------------------

bool WindowApp::mouseOverUi(float windowX, float windowY) const {
  // ImGui's WantCaptureMouse describes where the cursor was at the last frame; a move and a click that
  // arrive together (a quick user on a slow frame) would go to the wrong side. The panels' rectangles from
  // the last frame, tested at the event's own position, do not have that lag; whenever either says the
  // mouse is ImGui's, the world does not get it.
  if (ImGui::GetIO().WantCaptureMouse || ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId) ||
      ImGui::IsAnyItemActive())
    return true;
  return std::any_of(uiRects_.begin(), uiRects_.end(), [&](const ImVec4& r) {
    return windowX >= r.x && windowX < r.z && windowY >= r.y && windowY < r.w;
  });
}

ui::WorldMouse WindowApp::mouseAt(float windowX, float windowY) const {
  ui::WorldMouse m;
  m.world = camera_.screenToWorld(windowX * pixelRatio_, windowY * pixelRatio_);
  const SDL_Keymod mods = SDL_GetModState();
  m.ctrl = (mods & KMOD_CTRL) != 0;
  m.shift = (mods & KMOD_SHIFT) != 0;
  return m;
}

bool WindowApp::dispatchMouse(const ui::WorldMouse& mouse) {
  for (ui::PartSlot& slot : parts_) {
    if (slot.part->onWorldMouse(ctx_, mouse)) return true;
  }
  return false;
}

void WindowApp::handleEvent(const SDL_Event& event, bool& quit) {
  ImGui_ImplSDL2_ProcessEvent(&event);
  const ImGuiIO& io = ImGui::GetIO();
  // A screenshot or clip run takes no pointer input (see init): the display's pointer is nobody's.
  const bool mouseEvent = event.type == SDL_MOUSEBUTTONDOWN || event.type == SDL_MOUSEBUTTONUP ||
                          event.type == SDL_MOUSEMOTION || event.type == SDL_MOUSEWHEEL;
  if (mouseEvent && config_.scripted()) return;
  switch (event.type) {
    case SDL_QUIT:
      quit = true;
      break;
    case SDL_WINDOWEVENT:
      if (event.window.event == SDL_WINDOWEVENT_CLOSE &&
          event.window.windowID == SDL_GetWindowID(sdl_.window))
        quit = true;
      break;
    case SDL_KEYDOWN:
      if (!io.WantCaptureKeyboard) handleKey(event.key.keysym);
      break;
    case SDL_MOUSEBUTTONDOWN: {
      if (dragButton_ != 0 || mouseOverUi(float(event.button.x), float(event.button.y))) break;
      ui::WorldMouse m = mouseAt(float(event.button.x), float(event.button.y));
      m.kind = ui::WorldMouse::Kind::Press;
      m.button = event.button.button;
      dragButton_ = event.button.button;
      dragStartX_ = lastX_ = float(event.button.x);
      dragStartY_ = lastY_ = float(event.button.y);
      dragStartWorld_ = m.world;
      dragMoved_ = false;
      dragOwnedByPart_ = dispatchMouse(m);
      break;
    }
    case SDL_MOUSEMOTION: {
      const float x = float(event.motion.x), y = float(event.motion.y);
      if (dragButton_ == 0) {
        if (mouseOverUi(x, y)) break;
        ui::WorldMouse m = mouseAt(x, y);
        m.kind = ui::WorldMouse::Kind::Move;
        dispatchMouse(m);
        break;
      }
      if (std::fabs(x - dragStartX_) + std::fabs(y - dragStartY_) > 3.0f) dragMoved_ = true;
      if (dragOwnedByPart_) {
        ui::WorldMouse m = mouseAt(x, y);
        m.kind = ui::WorldMouse::Kind::Drag;
        m.button = dragButton_;
        m.pressWorld = dragStartWorld_;
        m.dragged = dragMoved_;
        dispatchMouse(m);
      } else {
        camera_.panPixels((x - lastX_) * pixelRatio_, (y - lastY_) * pixelRatio_);
        fitted_ = false;
      }
      lastX_ = x;
      lastY_ = y;
      break;
    }
    case SDL_MOUSEBUTTONUP: {
      if (event.button.button != dragButton_) break;
      if (dragOwnedByPart_) {
        ui::WorldMouse m = mouseAt(float(event.button.x), float(event.button.y));
        m.kind = ui::WorldMouse::Kind::Release;
        m.button = dragButton_;
        m.pressWorld = dragStartWorld_;
        m.dragged = dragMoved_;
        dispatchMouse(m);
      } else if (!dragMoved_ && !mouseOverUi(float(event.button.x), float(event.button.y))) {
        // A press the camera had (it would have panned) that never moved: a click on the world.
        ui::WorldMouse m = mouseAt(float(event.button.x), float(event.button.y));
        m.kind = ui::WorldMouse::Kind::Click;
        m.button = dragButton_;
        m.pressWorld = dragStartWorld_;
        dispatchMouse(m);
      }
      dragButton_ = 0;
      dragOwnedByPart_ = false;
      break;
    }
    case SDL_MOUSEWHEEL: {
      int x = 0, y = 0;
      SDL_GetMouseState(&x, &y);
      if (event.wheel.y == 0 || mouseOverUi(float(x), float(y))) break;
      ui::WorldMouse m = mouseAt(float(x), float(y));
      m.kind = ui::WorldMouse::Kind::Wheel;
      m.wheel = float(event.wheel.y);
      if (!dispatchMouse(m)) {
        camera_.zoomAround(float(x) * pixelRatio_, float(y) * pixelRatio_, std::pow(1.2f, m.wheel));
        fitted_ = false;
      }
      break;
    }
    default:
      break;
  }
}

void WindowApp::handleKey(const SDL_Keysym& key) {
  switch (key.sym) {
    case SDLK_SPACE:
      model_.paused = !model_.paused;
      break;
    case SDLK_PERIOD:
      model_.paused = true;
      model_.requestStep();
      break;
    case SDLK_LEFTBRACKET:
      model_.cycleStructure(-1);
      break;
    case SDLK_RIGHTBRACKET:
      model_.cycleStructure(+1);
      break;
    case SDLK_f:
      view_.fitRequested = true;
      break;
    case SDLK_F1:
      view_.hideUi = !view_.hideUi;
      break;
    case SDLK_F5:
      view_.present = !view_.present;
      break;
    case SDLK_ESCAPE:
      view_.present = false;
      break;
    // A presenter's remote sends Page Down / Page Up. The arrows step a panel that has the focus (Step
    // through) rather than the lesson.
    case SDLK_PAGEDOWN:
    case SDLK_PAGEUP:
    case SDLK_RIGHT:
    case SDLK_LEFT: {
      const bool arrow = key.sym == SDLK_RIGHT || key.sym == SDLK_LEFT;
      if (arrow && ImGui::IsWindowFocused(ImGuiFocusedFlags_AnyWindow)) break;
      ui::teachBoard().lessonMove = key.sym == SDLK_PAGEDOWN || key.sym == SDLK_RIGHT ? +1 : -1;
      break;
    }
    case SDLK_F12:
      view_.screenshotRequested = true;
      break;
    default:
      if (key.sym >= SDLK_0 && key.sym <= SDLK_9)
        model_.selectByDigit(static_cast<int>(key.sym - SDLK_0), (key.mod & KMOD_SHIFT) != 0);
      break;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------------------

void WindowApp::drawWorld() {
  using namespace render;
  gl::Viewport(0, 0, drawableWidth_, drawableHeight_);
  gl::ClearColor(redOf(colours::kBackground), greenOf(colours::kBackground), blueOf(colours::kBackground),
                 1.0f);
  gl::Clear(GL_COLOR_BUFFER_BIT);
  gl::Enable(GL_BLEND);
  gl::BlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);

  const Simulation& sim = model_.simulation();
  const std::vector<Circle>& circles = sim.circles();
  instances_.resize(circles.size());
  model_.scheduler().parallelFor(circles.size(), 16384, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t i = begin; i < end; ++i) {
      const Circle& c = circles[i];
      const int group = sim.group(static_cast<ItemId>(i));
      instances_[i] = {c.center.x, c.center.y, c.radius, group < 0 ? colours::kStatic : groupColour(group),
                       0u};
    }
  });
  canvas_.underlay = canvas_.overlay = nullptr;
  canvas_.below.clear(camera_.pixelsPerUnit());
  canvas_.above.clear(camera_.pixelsPerUnit());
  canvas_.top.clear(camera_.pixelsPerUnit());
  canvas_.rings.clear();
  canvas_.marks.clear();
  // Overlays first, then panels: what a panel shows of something picked (the inspector's path, the
  // step-through's walk) stays on top of the live overlays.
  for (const auto category : {ui::PartCategory::Overlay, ui::PartCategory::Panel}) {
    for (ui::PartSlot& slot : parts_) {
      if (slot.info->category != category || (category == ui::PartCategory::Overlay && !slot.shown)) continue;
      slot.part->tintCircles(ctx_, instances_);
      slot.part->drawWorld(ctx_, canvas_);
    }
  }

  // Zoomed in, most circles are off screen: sending only the visible ones keeps llvmpipe's vertex work
  // proportional to what is shown.
  const Box view = camera_.visibleWorld();
  const Box& world = sim.world();
  std::span<const CircleInstance> toDraw = instances_;
  const float viewArea = (view.max.x - view.min.x) * (view.max.y - view.min.y);
  const float worldArea = (world.max.x - world.min.x) * (world.max.y - world.min.y);
  if (viewArea < 0.5f * worldArea) {
    const float margin = sim.maxRadius() + 2.0f / camera_.pixelsPerUnit();
    const Box grown{{view.min.x - margin, view.min.y - margin}, {view.max.x + margin, view.max.y + margin}};
    visibleInstances_.clear();
    for (const CircleInstance& c : instances_) {
      if (c.x >= grown.min.x && c.x <= grown.max.x && c.y >= grown.min.y && c.y <= grown.max.y)
        visibleInstances_.push_back(c);
    }
    toDraw = visibleInstances_;
  }

  {
    const ClipToWorldBox clip(world, camera_);
    if (canvas_.underlay != nullptr) underlay_.draw(*canvas_.underlay, camera_);
    shapes_.draw(canvas_.below, camera_);
  }
  const CircleMode mode = view_.circleMode;
  circles_.setScheduler(&model_.scheduler());  // the pool changes when the thread slider moves
  circles_.draw(toDraw, camera_, mode, {view_.minCirclePx, 1.5f});
  {
    const ClipToWorldBox clip(world, camera_);
    if (canvas_.overlay != nullptr) overlay_.draw(*canvas_.overlay, camera_);
    circles_.draw(canvas_.rings, camera_, CircleMode::Pulled, {0.5f, 1.2f});
    shapes_.draw(canvas_.above, camera_);
  }
  // Drawn a little larger than the circles themselves, so that a hit stays visible at any count.
  marks_.setScheduler(&model_.scheduler());
  marks_.draw(canvas_.marks, camera_, mode, {std::max(view_.minCirclePx, 1.6f), 1.0f});
  shapes_.draw(canvas_.top, camera_);
}

void WindowApp::drawUi() {
  ImGui_ImplOpenGL3_NewFrame();
  if (!fontFilterSet_) {
    // Glyphs are rasterized at the size they are drawn, so nearest sampling looks the same as linear and
    // is much cheaper for software rasterizers, which sample every pixel of every panel.
    fontFilterSet_ = true;
    render::gl::BindTexture(
        GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(ImGui::GetIO().Fonts->TexID)));
    render::gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    render::gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  uiRects_.clear();
  if (!view_.hideUi) {
    if (!view_.present) drawMenuBar();
    drawPanels();
    for (ui::PartSlot& slot : parts_) {
      if (slot.info->category == ui::PartCategory::Overlay && !slot.shown) continue;
      slot.part->drawScreen(ctx_);
    }
  }
  recorder_.drawProgress();
  ImGui::Render();
  recorder_.renderUi(ImGui::GetDrawData(), drawableWidth_, drawableHeight_);
}

void WindowApp::drawPanels() {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float scale = view_.uiScale;
  const float top = view_.present ? 0.0f : ImGui::GetFrameHeight();
  // A new UI scale puts every panel back at its (scaled) place; a lesson step every panel but the lesson's,
  // which stays where the user put it.
  const bool layoutAll = relayoutPanels_;
  const bool layoutOthers = layoutAll || view_.layoutPanels;
  relayoutPanels_ = view_.layoutPanels = false;
  float areaX0 = 0.0f, areaX1 = display.x;  // where panels go: beside the lesson's, when it is open
  // A lesson step's panels keep their width where the window allows: the lesson's column gives way, down to
  // three quarters of its own (a large UI scale leaves little room beside it).
  float lessonWidth = 0.0f;
  if (layoutOthers && !view_.present) {
    float widest = 0.0f;
    for (const ui::PartSlot& slot : parts_) {
      if (slot.info->category == ui::PartCategory::Panel && slot.shown &&
          slot.info->name != ui::teach_names::kLesson)
        widest = std::max(widest, slot.part->placement().width * scale);
    }
    const float natural = kLessonWidth * scale;
    lessonWidth = std::clamp(display.x - widest - 30.0f, 0.75f * natural, natural);
  }
  for (ui::PartSlot& slot : parts_) {
    if (slot.info->category != ui::PartCategory::Panel || !slot.shown) continue;
    const bool lesson = slot.info->name == ui::teach_names::kLesson;
    if (view_.present && !lesson) continue;
    if (view_.present) {
      // The world is square: on a wide window the text takes the strip beside it (at least a third of the
      // width), on a tall one the strip below it, so it never covers the world's middle.
      const bool wide = display.x >= display.y * 1.2f;
      const ImVec2 size = wide ? ImVec2(std::max(display.x - display.y, display.x * 0.34f), display.y)
                               : ImVec2(display.x, std::max(display.y - display.x, display.y * 0.3f));
      ImGui::SetNextWindowPos(ImVec2(display.x - size.x, display.y - size.y));
      ImGui::SetNextWindowSize(size);
      // A window of its own name, so the presentation never moves the panel of the normal layout.
      constexpr ImGuiWindowFlags kFlags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove |
                                          ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                          ImGuiWindowFlags_NoSavedSettings;
      if (ImGui::Begin("Lesson##presentation", nullptr, kFlags)) slot.part->drawPanel(ctx_);
    } else {
      // Places and sizes grow with the UI scale, within the window (and beside the lesson's panel).
      const ui::PanelPlacement p = slot.part->placement();
      const float x0 = lesson ? 0.0f : areaX0, x1 = lesson ? display.x : areaX1;
      const float width = lesson && lessonWidth > 0.0f ? lessonWidth : p.width * scale;
      const ImVec2 size(std::max(std::min(width, x1 - x0 - 10.0f), 100.0f),
                        std::min(p.height * scale, display.y - top - 5.0f));
      const float x =
          std::clamp(x0 + p.anchorX * (x1 - x0) + p.offsetX * scale, x0, std::max(x1 - size.x, x0));
      const float y =
          std::clamp(p.anchorY * display.y + p.offsetY * scale, top, std::max(display.y - size.y, top));
      const ImGuiCond placing =
          (lesson ? layoutAll : layoutOthers) ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
      ImGui::SetNextWindowPos(ImVec2(x, y), placing);
      ImGui::SetNextWindowSize(size, lesson && lessonWidth > 0.0f ? ImGuiCond_Always : placing);
      if (ImGui::Begin(slot.info->name.c_str(), &slot.shown)) slot.part->drawPanel(ctx_);
    }
    ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    // After the window shrank (or a layout saved on a larger screen), keep a grabbable part of every panel
    // on screen.
    const ImVec2 reachable(std::max(0.0f, std::min(pos.x, display.x - std::min(size.x, 120.0f))),
                           std::max(0.0f, std::min(pos.y, display.y - ImGui::GetFrameHeight())));
    if (reachable.x != pos.x || reachable.y != pos.y) {
      ImGui::SetWindowPos(reachable);
      pos = reachable;
    }
    // A panel laid over the world (the split view) is not one the world is fitted around.
    if (!slot.part->placement().overWorld)
      uiRects_.emplace_back(pos.x, pos.y, pos.x + size.x, pos.y + size.y);
    ImGui::End();
    if (lesson && !view_.present) {
      if (pos.x + 0.5f * size.x < 0.5f * display.x) {
        areaX0 = std::min(pos.x + size.x, display.x * 0.6f);
      } else {
        areaX1 = std::max(pos.x, display.x * 0.4f);
      }
    }
  }
}

void WindowApp::applyUiScale() {
  ImGuiIO& io = ImGui::GetIO();
  const float scale = view_.uiScale;
  io.Fonts->Clear();
  // The second font is the larger one a lesson's title and the presentation view's text use.
  const char* fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  std::error_code ignored;
  for (const float size : {15.0f, 22.0f}) {
    if (std::filesystem::exists(fontPath, ignored)) {
      io.Fonts->AddFontFromFileTTF(fontPath, std::round(size * scale));
    } else {
      ImFontConfig font;
      font.SizePixels = std::round(size * 13.0f / 15.0f * scale);
      io.Fonts->AddFontDefault(&font);
    }
  }
  ImGui::GetStyle() = baseStyle_;
  ImGui::GetStyle().ScaleAllSizes(scale);
  ui::setUiScale(scale);
  if (appliedScale_ > 0.0f) {
    // The backend made the texture of the old atlas; it makes the new one now (before the next frame).
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    fontFilterSet_ = false;
    relayoutPanels_ = true;
    fitAfterUiFrames_ = 2;
  }
  appliedScale_ = scale;
}

void WindowApp::drawMenuBar() {
  if (!ImGui::BeginMainMenuBar()) return;
  const auto& all = model_.registry().all();
  if (ImGui::BeginMenu("Structure")) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string key = i < 10 ? std::to_string((i + 1) % 10) : "";
      if (ImGui::MenuItem(all[i].name.c_str(), key.c_str(), i == model_.structureIndex()))
        model_.selectStructure(all[i].name);
      if (ImGui::IsItemHovered() && !all[i].summary.empty()) ImGui::SetTooltip("%s", all[i].summary.c_str());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("previous", "[")) model_.cycleStructure(-1);
    if (ImGui::MenuItem("next", "]")) model_.cycleStructure(+1);
    ImGui::EndMenu();
  }
  for (const auto category : {ui::PartCategory::Panel, ui::PartCategory::Overlay}) {
    if (ImGui::BeginMenu(category == ui::PartCategory::Panel ? "Panels" : "Overlays")) {
      for (ui::PartSlot& slot : parts_) {
        if (slot.info->category != category) continue;
        ImGui::MenuItem(slot.info->name.c_str(), nullptr, &slot.shown);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", slot.info->description.c_str());
      }
      ImGui::EndMenu();
    }
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("fit world", "F")) view_.fitRequested = true;
    ImGui::MenuItem("hide panels", "F1", &view_.hideUi);
    ImGui::MenuItem("presentation view", "F5", &view_.present);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The world fills the window beside the lesson's text; every other panel is hidden.");
    if (ImGui::BeginMenu("UI scale")) {
      for (const float option : kUiScales) {
        char label[16];
        std::snprintf(label, sizeof label, "%gx", double(option));
        if (ImGui::MenuItem(label, nullptr, view_.uiScale == option)) view_.uiScale = option;
      }
      ImGui::TextDisabled("text and panels; 2x reads from the back of a room");
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("screenshot", "F12")) view_.screenshotRequested = true;
    ImGui::Separator();
    ImGui::MenuItem("pause", "space", &model_.paused);
    if (ImGui::MenuItem("single step", ".")) {
      model_.paused = true;
      model_.requestStep();
    }
    ImGui::Separator();
    ImGui::MenuItem("vsync", nullptr, &view_.vsync);
    for (int m = 0; m < render::kCircleModeCount; ++m) {
      const auto mode = static_cast<render::CircleMode>(m);
      if (ImGui::MenuItem(render::circleModeName(mode), nullptr, view_.circleMode == mode))
        view_.circleMode = mode;
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Record")) {
    recorder_.drawMenu(drawableWidth_, drawableHeight_);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    for (ui::PartSlot& slot : parts_) {
      if (slot.info->name == "Help")
        ImGui::MenuItem("keys, colours, panels and overlays", nullptr, &slot.shown);
      if (slot.info->name == ui::teach_names::kStartHere)
        ImGui::MenuItem("lessons (Start here)", nullptr, &slot.shown);
    }
    ImGui::TextDisabled("F1 hides every panel");
    ImGui::EndMenu();
  }
  const ui::FrameRecord recent = model_.timings.average(30);
  char status[256];
  // A clip leaves the frame rate out: it changes from run to run, and the same seed must give the same clip.
  char fps[32] = "";
  if (!recorder_.capturing())
    std::snprintf(fps, sizeof fps, " | %.0f fps",
                  recent.frameMs > 0.0f ? 1000.0 / double(recent.frameMs) : 0.0);
  std::snprintf(status, sizeof status, "%s%s%s | %zu circles%s%s", view_.status.c_str(),
                view_.status.empty() ? "" : " | ", model_.structure().name().c_str(),
                model_.simulation().circles().size(), fps, model_.paused ? " | paused" : "");
  const float width = ImGui::CalcTextSize(status).x;
  const float margin = ImGui::GetFontSize();
  ImGui::SameLine(std::max(ImGui::GetWindowWidth() - width - margin, ImGui::GetCursorPosX() + margin));
  ImGui::TextUnformatted(status);
  uiRects_.emplace_back(0.0f, 0.0f, ImGui::GetWindowWidth(), ImGui::GetWindowHeight());
  ImGui::EndMainMenuBar();
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------------------

std::optional<int> runWindowApp(const RunConfig& config) {
  // Settings are neither read nor written for screenshots and clips (that is how the tests run) or when asked
  // not to.
  const bool persist =
      !config.scripted() && config.soakSeconds == 0 && std::getenv("SPHERETEST_NO_SETTINGS") == nullptr;
  const std::string settingsDir = persist ? ui::settingsDirectory() : "";
  const bool canPersist = persist && !settingsDir.empty();
  ui::Settings settings;
  std::error_code absent;
  const bool firstStart = canPersist && !std::filesystem::exists(settingsDir + "/settings.ini", absent);
  if (canPersist) settings.load(settingsDir + "/settings.ini");

  int width =
      config.scripted() ? kDefaultWidth : static_cast<int>(settings.getNumber("window.width", kDefaultWidth));
  int height = config.scripted() ? kDefaultHeight
                                 : static_cast<int>(settings.getNumber("window.height", kDefaultHeight));
  // A screenshot or clip of another size (a projector's 1920x1080): $SPHERETEST_WINDOW_SIZE=WIDTHxHEIGHT.
  if (const char* size = std::getenv("SPHERETEST_WINDOW_SIZE"); size != nullptr && config.scripted()) {
    int w = 0, h = 0;
    if (std::sscanf(size, "%dx%d", &w, &h) == 2) width = w, height = h;
  }
  SdlWindow sdl;
  if (!sdl.open(std::clamp(width, 320, 16384), std::clamp(height, 240, 16384),
                settings.getBool("window.maximized", false))) {
    return std::nullopt;
  }
  if (canPersist) {
    std::error_code ignored;
    std::filesystem::create_directories(settingsDir, ignored);
  }

  std::unique_ptr<Simulation> simulation = makeSimulation(config);
  ui::SceneSetup setup;
  setup.count = simulation->circles().size();
  setup.scenario = config.scenario;
  setup.seed = config.seed;
  setup.config = config.scene;
  ui::DemoModel model(
      appRegistry(), [&config](const std::string& name) { return makeStructure(config, name); },
      std::move(simulation), setup, pickStartStructure(config));
  model.setThreads(config.threads);

  ImGuiSession imgui;
  WindowApp app(config, sdl, model, canPersist, settingsDir, firstStart);
  if (const std::string error = app.init(imgui, settings); !error.empty()) {
    std::cerr << "spheretest: window: " << error << "\n";
    return 1;
  }
  const int code = app.run();
  app.saveSettings();
  return code;
}

}  // namespace st::app
