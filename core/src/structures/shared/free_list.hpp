#pragma once
// The free list of a node pool. Dead slots are linked through a 32-bit field of their own (Box2D's
// b2DynamicTree keeps its free nodes the same way), so a freed slot is reused before the pool grows and the
// list costs no memory beside the pool. Each structure names the field that holds the link: an AABB node's
// parent, a super-sphere's first child, a grid node's next link, a quadtree child block's first child.

#include <cstddef>
#include <cstdint>
#include <string>

#include "no_index.hpp"

namespace st {

/// The dead slots of a pool, linked through a field each structure names with `linkOf(slot)`, a callable
/// returning a reference to that slot's 32-bit link.
class FreeList {
 public:
  /// Takes the most recently freed slot, or returns kNoIndex when none is left (the pool must grow).
  template <class LinkOf>
  std::uint32_t take(LinkOf&& linkOf) {
    const std::uint32_t slot = head_;
    if (slot == kNoIndex) return kNoIndex;
    head_ = linkOf(slot);
    --size_;
    return slot;
  }

  /// Frees `slot`: its link field now names the slot freed before it.
  template <class LinkOf>
  void give(std::uint32_t slot, LinkOf&& linkOf) {
    linkOf(slot) = head_;
    head_ = slot;
    ++size_;
  }

  /// Forgets every slot (the pool is being cleared or rebuilt).
  void clear() {
    head_ = kNoIndex;
    size_ = 0;
  }

  /// The slots on the list.
  std::size_t size() const { return size_; }

  /// What is wrong with the list, or nothing: every slot on it lies in a pool of `poolSize` slots and is
  /// dead by `isDead(slot)`, and the list ends after exactly size() slots (so a list that loops is caught).
  template <class LinkOf, class IsDead>
  std::string problem(LinkOf&& linkOf, IsDead&& isDead, std::size_t poolSize) const {
    std::size_t count = 0;
    for (std::uint32_t slot = head_; slot != kNoIndex; slot = linkOf(slot)) {
      if (slot >= poolSize) return "the free list points outside the pool";
      if (!isDead(slot)) return "the free list holds a live slot";
      if (++count > size_) return "the free list is longer than its count";
    }
    if (count != size_) return "the free list is shorter than its count";
    return {};
  }

 private:
  std::uint32_t head_ = kNoIndex;
  std::size_t size_ = 0;
};

}  // namespace st
