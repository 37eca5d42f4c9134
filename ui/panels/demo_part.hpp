#pragma once
/// \file The parts of the demo window: panels and overlays that register themselves by category and name.
///
/// A part is created once when the window opens and lives until it closes. The app owns the frame loop and
/// calls every part at fixed points of each frame:
///   1. onWorldMouse  - mouse input over the world that ImGui did not take (first part to accept it wins)
///   2. update        - after the simulation and pair search (the query tool runs its query here)
///   3. tintCircles   - recolour circles by id before they are drawn
///   4. drawWorld     - add world-space shapes to the canvas
///   5. drawPanel     - ImGui contents, inside the window the app opened for the part
///   6. drawScreen    - ImGui drawing outside any window (tooltips over the world), after the panels
/// Overlays get 3, 4 and 6 only while shown; panels get 3, 4 and 6 always (a tool's shape stays visible
/// when its window is closed) and 5 only while their window is open. In 3 and 4 the overlays go first and
/// the panels after them, so that what a panel shows of something picked is drawn on top. Adding a part is
/// adding a .cpp file with a PartRegistrar in it: menus, settings and the help panel pick it up from the
/// registry.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/circle_renderer.hpp"
#include "render/shape_batch.hpp"
#include "render/world_image.hpp"
#include "ui/model/demo_model.hpp"
#include "ui/model/settings.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// What parts see
// ---------------------------------------------------------------------------------------------------------

/// Display options and requests the app acts on.
struct ViewOptions {
  bool vsync = true;                                           ///< wait for the display's refresh
  render::CircleMode circleMode = render::CircleMode::Pulled;  ///< how circles are fed to the rasterizer
  std::string glRenderer;            ///< GL_RENDERER of the context, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  bool softwareGl = false;           ///< the renderer is a software rasterizer
  float minCirclePx = 0.8f;          ///< smallest drawn circle radius, pixels
  bool hideUi = false;               ///< F1: only the world is drawn
  bool present = false;              ///< F5: the presentation view (the world and the lesson's text)
  float uiScale = 1.0f;              ///< font and panel scale; the app applies a change before the next frame
  bool layoutPanels = false;         ///< put the open panels back at their places, beside the lesson's
  bool fitRequested = false;         ///< fit the world into the window on the next frame
  std::optional<Box> fitBox;         ///< with fitRequested: fit this part of the world instead
  bool cameraMoved = false;          ///< a part placed the camera: the app stops refitting the world
  bool screenshotRequested = false;  ///< save a screenshot at the end of this frame
  /// A scripted run (screenshot, recording): each frame shows its own state, never one a part chose by how
  /// long something took, so that the same seed gives the same pictures.
  bool reproducible = false;
  std::string status;  ///< one line for the menu bar (e.g. where a screenshot went)
};

/// World-space drawing of one frame, in the order it reaches the screen: `underlay` and `below` (under the
/// circles), the circles, `overlay`, `rings` (outlined circles such as sphere-tree nodes), `above`, then
/// `marks` (the query's hits and candidates drawn again, so that no node drawing covers them) and `top`.
/// The node layers (all but `marks` and `top`) are clipped to the world's box.
struct WorldCanvas {
  const render::WorldImage* underlay = nullptr;  ///< an image under everything (its part keeps it alive)
  render::ShapeBatch below;                      ///< fills under the circles
  const render::WorldImage* overlay = nullptr;   ///< an image over the circles (its part keeps it alive)
  std::vector<render::CircleInstance> rings;     ///< outlined circles over the circles
  render::ShapeBatch above;                      ///< node outlines and lines over the circles
  std::vector<render::CircleInstance> marks;     ///< circles over every node drawing
  render::ShapeBatch top;                        ///< shapes over everything (the query's shape)
  /// Adds an outlined circle to `rings`.
  void ring(const Circle& c, std::uint32_t colour) {
    rings.push_back({c.center.x, c.center.y, c.radius, 0u, colour});
  }
};

/// Outlines a node in `canvas.above`, `width` lines each `px` world units inside the last.
void outlineNode(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour, int width, float px);

/// Outlines a node's grown bounds (NodeInfo::grown) in dashes in `canvas.above`, when it has any.
void outlineGrown(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour);

/// Fills a node in `canvas.below`.
void fillNode(WorldCanvas& canvas, const NodeInfo& node, std::uint32_t colour);

/// A mouse event over the world.
struct WorldMouse {
  /// What happened.
  /// Click: a press and release without moving that no part took at the press (a right click, or a left
  /// click while no query tool wants it).
  enum class Kind : std::uint8_t { Press, Drag, Release, Move, Wheel, Click };
  Kind kind = Kind::Move;  ///< what happened
  int button = 0;          ///< 1 left, 2 middle, 3 right (Press, Drag, Release, Click)
  Vec2 world;              ///< cursor, world units
  Vec2 pressWorld;         ///< where the button went down (Drag, Release)
  bool dragged = false;    ///< the cursor moved more than a few pixels since the press
  float wheel = 0.0f;      ///< wheel steps, positive away from the user (Wheel)
  bool ctrl = false;       ///< Ctrl held
  bool shift = false;      ///< Shift held
};

struct PartSlot;

/// Everything a part may read or change during a frame.
struct DemoContext {
  DemoModel& model;                             ///< simulation, structure, pairs, query, timings
  render::Camera& camera;                       ///< the view
  ViewOptions& view;                            ///< display options and requests
  std::span<PartSlot> parts;                    ///< every part, for menus and lists
  bool isShown(const std::string& name) const;  ///< whether the named part is shown
};

// ---------------------------------------------------------------------------------------------------------
// Parts and their registry
// ---------------------------------------------------------------------------------------------------------

/// What kind of part: a window of its own, or a layer drawn over the world.
enum class PartCategory : std::uint8_t { Panel, Overlay };

/// Where a panel's window first appears (the saved layout wins afterwards), as fractions of the viewport
/// plus pixel offsets so panels hug the edges at any window size.
struct PanelPlacement {
  float anchorX = 0.0f;   ///< 0 left edge, 1 right edge
  float anchorY = 0.0f;   ///< 0 top, 1 bottom
  float offsetX = 10.0f;  ///< pixels from the anchor (negative: leftward)
  float offsetY = 30.0f;  ///< pixels from the anchor (negative: upward)
  float width = 320.0f;   ///< pixels
  float height = 300.0f;  ///< pixels
  /// The panel places itself over the world's area every frame (the split view): the world is fitted
  /// around the other panels only.
  bool overWorld = false;
};

/// One part of the demo.
class DemoPart {
 public:
  virtual ~DemoPart() = default;
  /// Mouse input over the world; return true to take it (the camera then ignores it).
  virtual bool onWorldMouse(DemoContext& ctx, const WorldMouse& mouse) {
    (void)ctx;
    (void)mouse;
    return false;
  }
  /// Per-frame work after the simulation and pair search (timed as the "queries" phase).
  virtual void update(DemoContext& ctx) { (void)ctx; }
  /// Recolours circles; `circles[id]` is circle `id`.
  virtual void tintCircles(DemoContext& ctx, std::span<render::CircleInstance> circles) {
    (void)ctx;
    (void)circles;
  }
  /// Adds world-space shapes.
  virtual void drawWorld(DemoContext& ctx, WorldCanvas& canvas) {
    (void)ctx;
    (void)canvas;
  }
  /// Panel contents (the app has opened the window), or an overlay's options in the overlay list.
  virtual void drawPanel(DemoContext& ctx) { (void)ctx; }
  /// ImGui drawing outside the part's window, once per frame while the panels are shown.
  virtual void drawScreen(DemoContext& ctx) { (void)ctx; }
  /// Where a panel first appears.
  virtual PanelPlacement placement() const { return {}; }
  /// Restores the part's own settings (the section keeps parts' keys apart).
  virtual void loadSettings(const SettingsSection& settings) { (void)settings; }
  /// Saves the part's own settings.
  virtual void saveSettings(SettingsSection& settings) const { (void)settings; }
};

/// A registered part.
struct PartInfo {
  PartCategory category = PartCategory::Panel;        ///< panel or overlay
  std::string name;                                   ///< window title / menu entry; unique
  std::string description;                            ///< one line for menus and the help panel
  int order = 0;                                      ///< position in menus (ascending)
  bool shownByDefault = true;                         ///< shown on first run
  std::function<std::unique_ptr<DemoPart>()> create;  ///< factory
};

/// The registered parts, sorted by category then order.
const std::vector<PartInfo>& registeredParts();

/// Registers a part during static initialisation: one `const PartRegistrar registrar{{...}};` per part file.
struct PartRegistrar {
  /// Adds `info` to the registry; aborts on a duplicate name (a programming error).
  explicit PartRegistrar(PartInfo info);
};

/// A live part and whether it is shown.
struct PartSlot {
  const PartInfo* info = nullptr;  ///< its registration
  std::unique_ptr<DemoPart> part;  ///< the instance
  bool shown = true;               ///< window open / overlay drawn
};

/// Creates one slot per registered part, in registry order.
std::vector<PartSlot> createParts();

}  // namespace st::ui
