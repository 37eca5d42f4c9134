#pragma once
/// \file Colours of the demo, packed as RGBA8 the way the shaders read them (red in the lowest byte).

#include <algorithm>
#include <cstdint>

namespace st::render {

/// Packs four 0..255 channels.
constexpr std::uint32_t rgba(std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a = 255) {
  return r | (g << 8) | (b << 16) | (a << 24);
}
/// Packs four 0..1 channels.
inline std::uint32_t rgbaf(float r, float g, float b, float a = 1.0f) {
  auto byte = [](float v) { return static_cast<std::uint32_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  return rgba(byte(r), byte(g), byte(b), byte(a));
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

/// Fixed meanings, shared by the drawing and the help text.
namespace colours {
inline constexpr std::uint32_t kBackground = rgba(18, 20, 26);
inline constexpr std::uint32_t kStatic = rgba(92, 98, 112);      ///< circles that never move
inline constexpr std::uint32_t kOverlapRim = rgba(255, 64, 64);  ///< rim of a circle in some overlapping pair
inline constexpr std::uint32_t kPairLine = rgba(255, 90, 90, 150);  ///< line between an overlapping pair
inline constexpr std::uint32_t kHit = rgba(255, 236, 120);          ///< query hit (fill)
inline constexpr std::uint32_t kHitRim = rgba(255, 160, 0);         ///< query hit (rim)
inline constexpr std::uint32_t kCandidateRim = rgba(40, 230, 255);  ///< tested by the query but missed
inline constexpr std::uint32_t kVisited = rgba(90, 255, 120, 220);  ///< node the query walked into
inline constexpr std::uint32_t kPruned = rgba(255, 70, 160, 200);   ///< node the query rejected
inline constexpr std::uint32_t kQueryShape = rgba(255, 255, 255, 230);
inline constexpr std::uint32_t kCone = rgba(255, 220, 90, 40);  ///< view cone fill
inline constexpr std::uint32_t kEntered = rgba(255, 255, 255);  ///< entered the view cone this frame
inline constexpr std::uint32_t kLeft = rgba(255, 120, 60);      ///< left the view cone this frame
}  // namespace colours

/// Colour of attraction group `g` (a hue wheel with alternating lightness so neighbours differ).
inline std::uint32_t groupColour(int g) {
  static constexpr std::uint32_t kTable[16] = {
      rgba(70, 140, 255),  rgba(255, 170, 60),  rgba(90, 210, 110),  rgba(220, 90, 220),
      rgba(60, 210, 210),  rgba(240, 110, 90),  rgba(170, 150, 255), rgba(200, 220, 70),
      rgba(40, 110, 200),  rgba(255, 130, 180), rgba(60, 160, 90),   rgba(150, 90, 230),
      rgba(250, 210, 120), rgba(100, 190, 255), rgba(190, 120, 70),  rgba(130, 230, 180)};
  return kTable[static_cast<unsigned>(g) % 16u];
}

/// Colour of tree depth `d` for node outlines (pale at the root, then warm, cooling with depth).
inline std::uint32_t depthColour(int d, std::uint32_t alpha = 170) {
  static constexpr std::uint32_t kTable[10] = {
      rgba(190, 200, 220), rgba(255, 214, 90), rgba(255, 150, 60), rgba(240, 90, 110), rgba(200, 90, 220),
      rgba(130, 110, 255), rgba(70, 160, 255), rgba(60, 220, 220), rgba(90, 230, 130), rgba(200, 240, 90)};
  return withAlpha(kTable[static_cast<unsigned>(d) % 10u], alpha);
}

}  // namespace st::render
