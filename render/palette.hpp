#pragma once
/// \file Colours of the demo, packed as RGBA8 the way the shaders read them (red in the lowest byte).

#include <cstdint>

namespace st::render {

/// Packs four 0..255 channels.
constexpr std::uint32_t rgba(std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a = 255) {
  return r | (g << 8) | (b << 16) | (a << 24);
}
/// The same colour with another alpha (0..255).
constexpr std::uint32_t withAlpha(std::uint32_t colour, std::uint32_t alpha) {
  return (colour & 0x00ffffffu) | (alpha << 24);
}
/// Red channel 0..1.
constexpr float redOf(std::uint32_t c) {
  return float(c & 0xffu) / 255.0f;
}
/// Green channel 0..1.
constexpr float greenOf(std::uint32_t c) {
  return float((c >> 8) & 0xffu) / 255.0f;
}
/// Blue channel 0..1.
constexpr float blueOf(std::uint32_t c) {
  return float((c >> 16) & 0xffu) / 255.0f;
}
/// Alpha channel 0..1.
constexpr float alphaOf(std::uint32_t c) {
  return float(c >> 24) / 255.0f;
}

// One palette, in three families that cannot be mistaken for each other (the parts test measures their
// perceptual distances):
//   - query states (hit, candidate, visited, pruned) and the marks of events (overlap, cone enter/leave):
//     saturated colours reserved for them;
//   - node depth: one near-neutral hue whose brightness falls with depth;
//   - attraction groups: sixteen muted colours, clear of both.

/// Fixed meanings, shared by the drawing and the help text.
namespace colours {
inline constexpr std::uint32_t kBackground = rgba(18, 20, 26);
inline constexpr std::uint32_t kStatic = rgba(112, 117, 128);      ///< circles that never move
inline constexpr std::uint32_t kHit = rgba(255, 225, 0);           ///< query hit (fill)
inline constexpr std::uint32_t kHitRim = rgba(90, 70, 0);          ///< query hit (rim: neighbours stay apart)
inline constexpr std::uint32_t kCandidateRim = rgba(0, 225, 255);  ///< tested by the query but missed
inline constexpr std::uint32_t kVisited = rgba(40, 255, 60, 230);  ///< node the query walked into
inline constexpr std::uint32_t kPruned = rgba(255, 0, 170, 220);   ///< node the query rejected
inline constexpr std::uint32_t kOverlapRim = rgba(255, 40, 40);  ///< rim of a circle in some overlapping pair
inline constexpr std::uint32_t kPairLine = rgba(255, 40, 40, 150);  ///< line between an overlapping pair
inline constexpr std::uint32_t kEntered = rgba(255, 255, 255);      ///< entered the view cone this frame
inline constexpr std::uint32_t kLeft = rgba(255, 120, 0);           ///< left the view cone this frame
inline constexpr std::uint32_t kQueryShape = rgba(255, 255, 255, 230);
inline constexpr std::uint32_t kCone = rgba(255, 220, 90, 40);  ///< view cone fill
}  // namespace colours

/// A reserved colour and what it means, for legends.
struct ReservedColour {
  std::uint32_t colour;  ///< RGBA8
  const char* meaning;   ///< one line
};

/// The query states and event marks, in the order legends list them.
inline constexpr ReservedColour kReservedColours[] = {
    {colours::kHit, "hit: the exact test said yes (filled)"},
    {colours::kCandidateRim, "candidate: tested exactly, missed (rim)"},
    {colours::kVisited, "entered: a node whose bounds the query met (visited)"},
    {colours::kPruned, "pruned: a node whose bounds the query rejected (visited)"},
    {colours::kOverlapRim, "overlapping: in a pair this frame (rim, line)"},
    {colours::kEntered, "entered the view cone this frame (rim)"},
    {colours::kLeft, "left the view cone this frame (rim)"},
};

/// The attraction groups' colours: muted, consecutive groups far apart in hue and in lightness.
inline constexpr std::uint32_t kGroupColours[16] = {
    rgba(169, 108, 122), rgba(160, 172, 114), rgba(73, 137, 167),  rgba(200, 145, 178),
    rgba(143, 128, 70),  rgba(99, 179, 190),  rgba(150, 113, 158), rgba(196, 157, 108),
    rgba(63, 144, 134),  rgba(170, 154, 209), rgba(167, 114, 84),  rgba(117, 181, 150),
    rgba(114, 124, 176), rgba(210, 146, 137), rgba(102, 140, 94),  rgba(128, 168, 214)};

/// Colour of attraction group `g`.
constexpr std::uint32_t groupColour(int g) {
  return kGroupColours[static_cast<unsigned>(g) % 16u];
}

/// Levels of the depth ramp: deeper nodes take the last level's shade.
inline constexpr int kDepthLevels = 10;

/// Shade of the depth ramp at `t` (0 the root's, 1 the deepest's): one near-neutral hue, bright to dim.
constexpr std::uint32_t depthShade(float t, std::uint32_t alpha = 255) {
  const float u = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  auto channel = [u](float root, float deep) {
    return static_cast<std::uint32_t>(root + (deep - root) * u + 0.5f);
  };
  return rgba(channel(200, 65), channel(210, 72), channel(222, 83), alpha);
}

/// Fill of the node overlay's depth map at `t` (0 the root's depth, 1 the deepest's), opaque: the same
/// grey-blue as the outlines, lighter where the tree is deeper, so that the deep places stand out under
/// the circles.
constexpr std::uint32_t depthFill(float t) {
  const float u = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  auto channel = [u](float low, float high) {
    return static_cast<std::uint32_t>(low + (high - low) * u + 0.5f);
  };
  return rgba(channel(28, 62), channel(32, 74), channel(42, 100));
}

/// Colour of tree depth `d` for node outlines: bright at the root, dimmer with each level down to level
/// kDepthLevels - 1.
constexpr std::uint32_t depthColour(int d, std::uint32_t alpha = 170) {
  return depthShade(float(d < 0 ? 0 : d) / float(kDepthLevels - 1), alpha);
}

}  // namespace st::render
