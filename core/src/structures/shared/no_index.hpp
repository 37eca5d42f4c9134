#pragma once

// The one value every structure uses for a 32-bit link to nothing.

#include <cstdint>

namespace st {

/// The 32-bit index that names no node, slot, cell or item: a missing child, the end of a free list, an
/// absent item's slot.
inline constexpr std::uint32_t kNoIndex = 0xffffffffu;

}  // namespace st
