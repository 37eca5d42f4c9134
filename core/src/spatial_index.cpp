#include "spheretest/spatial_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>

#include "spheretest/assert.hpp"
#include "spheretest/hash.hpp"

#include "structures/shared/simd_support.hpp"

namespace st {

void QueryContext::record(const TraceEvent& event) const {
  trace->events.push_back(event);
}
namespace {

constexpr float kAbsent = std::numeric_limits<float>::quiet_NaN();

std::string describe(const Circle& c) {
  std::ostringstream s;
  s << "(" << c.center.x << ", " << c.center.y << ") r=" << c.radius;
  return s.str();
}

/// Whether every circle of a span passes isValidCircle. Busy frames check every item this way, so four
/// circles (three vectors) are checked at a time: each lane against the bounds of its field, [-max, max]
/// for a coordinate and [0, max] for a radius (a NaN fails both comparisons).
bool allValidCircles(std::span<const Circle> circles) {
  static_assert(sizeof(Circle) == 3 * sizeof(float), "circles are read as packed floats");
  const float m = kMaxCoordinate;
  const simd::FloatW4 high = simd::splatF4(m);
  // Field of each lane over four circles: x y r x | y r x y | r x y r.
  const simd::FloatW4 low0 = simd::setF4(-m, -m, 0.0f, -m), low1 = simd::setF4(-m, 0.0f, -m, -m),
                      low2 = simd::setF4(0.0f, -m, -m, 0.0f);
  auto inBounds = [&](simd::FloatW4 v, simd::FloatW4 low) {
    return simd::bitAnd(simd::greaterEqual(v, low), simd::lessEqual(v, high));
  };
  simd::FloatW4 inside = simd::allTrueF4();
  std::size_t i = 0;
  for (; i + 4 <= circles.size(); i += 4) {
    const char* bytes = reinterpret_cast<const char*>(circles.data() + i);
    const simd::FloatW4 v0 = simd::loadF4(reinterpret_cast<const float*>(bytes)),
                        v1 = simd::loadF4(reinterpret_cast<const float*>(bytes + 16)),
                        v2 = simd::loadF4(reinterpret_cast<const float*>(bytes + 32));
    inside = simd::bitAnd(
        inside, simd::bitAnd(inBounds(v0, low0), simd::bitAnd(inBounds(v1, low1), inBounds(v2, low2))));
  }
  bool valid = simd::signMask(inside) == 0xf;
  for (; i < circles.size(); ++i) valid &= isValidCircle(circles[i]);
  return valid;
}

#if defined(SPHERETEST_VALIDATE) && SPHERETEST_VALIDATE
constexpr bool kValidateMutations = true;
#else
constexpr bool kValidateMutations = false;
#endif

/// With SPHERETEST_VALIDATE, every public mutation ends by validating the whole structure, so that a broken
/// invariant stops the program at the call that broke it rather than at a later wrong answer.
void validateAfter(const SpatialIndex& index, const char* call) {
  if constexpr (kValidateMutations) {
    const std::string problem = index.validate();
    ST_ASSERT(problem.empty(), (std::string("validation after ") + call + ": " + problem).c_str());
  } else {
    (void)index;
    (void)call;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------------------

void SpatialIndex::addParam(ParamInfo info) {
  paramValues_.push_back(info.defaultValue);
  paramInfo_.push_back(std::move(info));
}

void SpatialIndex::setParam(std::string_view key, double value) {
  for (std::size_t i = 0; i < paramInfo_.size(); ++i) {
    const ParamInfo& info = paramInfo_[i];
    if (info.key != key) continue;
    if (!std::isfinite(value) || value < info.minValue || value > info.maxValue ||
        (info.integer && value != std::floor(value))) {
      std::ostringstream s;
      s << name_ << "." << key << " must be " << (info.integer ? "an integer" : "a number") << " in ["
        << info.minValue << ", " << info.maxValue << "], got " << value;
      throw InvalidInput(s.str());
    }
    if (paramValues_[i] == value) return;
    paramValues_[i] = value;
    ++contentVersion_;
    onParamChanged(key);
    validateAfter(*this, "setParam");
    return;
  }
  std::string valid;
  for (const ParamInfo& info : paramInfo_) valid += (valid.empty() ? "" : ", ") + name_ + "." + info.key;
  throw InvalidInput("unknown parameter '" + name_ + "." + std::string(key) +
                     "'; valid: " + (valid.empty() ? "(none)" : valid));
}

double SpatialIndex::param(std::string_view key) const {
  for (std::size_t i = 0; i < paramInfo_.size(); ++i) {
    if (paramInfo_[i].key == key) return paramValues_[i];
  }
  throw InvalidInput("unknown parameter '" + name_ + "." + std::string(key) + "'");
}

void SpatialIndex::onParamChanged(std::string_view) {
  rebuildFromTable();
}

void SpatialIndex::rebuildFromTable() {
  std::vector<Item> items;
  items.reserve(count_);
  forEachItem([&](ItemId id, const Circle& c) { items.push_back({id, c}); });
  ++contentVersion_;
  counters_ = {};
  doClear();
  doBuild(items);
}

// ---------------------------------------------------------------------------------------------------------
// Mutation
// ---------------------------------------------------------------------------------------------------------

void SpatialIndex::checkCircle(const Circle& c, const char* what) const {
  if (!isValidCircle(c)) {
    throw InvalidInput(name_ + ": " + what + ": invalid circle " + describe(c) +
                       " (coordinates and radius must be finite, radius >= 0, magnitudes <= 1e15)");
  }
}

void SpatialIndex::storeCircle(ItemId id, const Circle& c) {
  if (id >= circles_.size()) {
    std::size_t grown = std::max<std::size_t>(circles_.size() * 3 / 2, std::size_t(id) + 1);
    grown = std::min<std::size_t>(grown, kMaxItemId);
    circles_.resize(grown, Circle{{0, 0}, kAbsent});
  }
  circles_[id] = c;
}

void SpatialIndex::build(std::span<const Item> items) {
  ItemId maxId = 0;
  for (const Item& item : items) {
    if (item.id >= kMaxItemId)
      throw InvalidInput(name_ + ": build: id " + std::to_string(item.id) + " >= 2^27");
    checkCircle(item.circle, "build");
    maxId = std::max(maxId, item.id);
  }
  std::vector<std::uint8_t> seen(items.empty() ? 0 : std::size_t(maxId) + 1, 0);
  for (const Item& item : items) {
    if (seen[item.id]) throw InvalidInput(name_ + ": build: duplicate id " + std::to_string(item.id));
    seen[item.id] = 1;
  }
  ++contentVersion_;
  doClear();
  circles_.assign(items.empty() ? 0 : std::size_t(maxId) + 1, Circle{{0, 0}, kAbsent});
  for (const Item& item : items) circles_[item.id] = item.circle;
  count_ = items.size();
  visible_.clear();
  counters_ = {};
  doBuild(items);
  validateAfter(*this, "build");
}

void SpatialIndex::insert(ItemId id, const Circle& c) {
  if (id >= kMaxItemId) throw InvalidInput(name_ + ": insert: id " + std::to_string(id) + " >= 2^27");
  checkCircle(c, "insert");
  if (contains(id)) throw InvalidInput(name_ + ": insert: id " + std::to_string(id) + " is already present");
  storeCircle(id, c);
  ++count_;
  ++contentVersion_;
  counters_ = {};
  doInsert(id, c);
  validateAfter(*this, "insert");
}

void SpatialIndex::update(ItemId id, const Circle& c) {
  if (!contains(id)) throw InvalidInput(name_ + ": update: unknown id " + std::to_string(id));
  checkCircle(c, "update");
  const Circle old = circles_[id];
  circles_[id] = c;
  ++contentVersion_;
  counters_ = {};
  doUpdate(id, old, c);
  validateAfter(*this, "update");
}

void SpatialIndex::updateBatch(std::span<const ItemId> ids, std::span<const Circle> circles) {
  if (ids.size() != circles.size())
    throw InvalidInput(name_ + ": updateBatch: ids and circles differ in length");
  // One pass over the whole batch (it is every moving item on busy frames), in blocks with no branch per
  // entry, spread over the workers; only a batch with a bad entry is walked again, to name the first one.
  // While no id below the table's end is absent, an id is known by its value alone and the table is not read.
  const std::size_t last = circles_.empty() ? 0 : circles_.size() - 1;
  const bool dense = count_ == circles_.size();
  constexpr std::size_t kBlock = 4096;
  const std::size_t blocks = (ids.size() + kBlock - 1) / kBlock;
  std::atomic<bool> allValid = !circles_.empty() || ids.empty();
  std::atomic<bool> increasing = true;
  scheduler().parallelFor(blocks, 16, [&](std::size_t firstBlock, std::size_t endBlock, unsigned) {
    for (std::size_t block = firstBlock; block < endBlock && allValid.load(std::memory_order_relaxed);
         ++block) {
      const std::size_t begin = block * kBlock, end = std::min(ids.size(), begin + kBlock);
      bool blockValid = allValidCircles(circles.subspan(begin, end - begin));
      bool blockIncreasing = true;
      for (std::size_t i = begin; i < end; ++i) blockValid &= ids[i] <= last;
      if (!dense) {
        for (std::size_t i = begin; i < end; ++i)
          blockValid &= !std::isnan(circles_[std::min<std::size_t>(ids[i], last)].radius);
      }
      for (std::size_t i = std::max<std::size_t>(begin, 1); i < end; ++i)
        blockIncreasing &= ids[i] > ids[i - 1];
      if (!blockValid) allValid.store(false, std::memory_order_relaxed);
      if (!blockIncreasing) increasing.store(false, std::memory_order_relaxed);
    }
  });
  if (!allValid) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!contains(ids[i]))
        throw InvalidInput(name_ + ": updateBatch: unknown id " + std::to_string(ids[i]));
      checkCircle(circles[i], "updateBatch");
    }
  }
  if (!increasing) {
    // Ids in increasing order (the usual batch) cannot repeat; otherwise look for a repeat, which would
    // make the batch's meaning depend on its order.
    std::vector<std::uint64_t> seen((circles_.size() + 63) / 64, 0);
    for (const ItemId id : ids) {
      const std::uint64_t bit = std::uint64_t{1} << (id % 64);
      if (seen[id / 64] & bit)
        throw InvalidInput(name_ + ": updateBatch: id " + std::to_string(id) + " appears twice");
      seen[id / 64] |= bit;
    }
  }
  // The ids are distinct by now, so the workers' writes to the table never meet.
  ++contentVersion_;
  std::vector<Circle> old;
  const bool keepOld = batchNeedsOldCircles(ids.size());
  if (keepOld) old.resize(ids.size());
  scheduler().parallelFor(ids.size(), 16384, [&](std::size_t begin, std::size_t end, unsigned) {
    if (keepOld) {
      for (std::size_t i = begin; i < end; ++i) old[i] = circles_[ids[i]];
    }
    for (std::size_t i = begin; i < end; ++i) circles_[ids[i]] = circles[i];
  });
  counters_ = {};
  doUpdateBatch(ids, old);
  validateAfter(*this, "updateBatch");
}

void SpatialIndex::remove(ItemId id) {
  if (!contains(id)) throw InvalidInput(name_ + ": remove: unknown id " + std::to_string(id));
  ++contentVersion_;
  counters_ = {};
  doRemove(id, circles_[id]);
  circles_[id].radius = kAbsent;
  --count_;
  validateAfter(*this, "remove");
}

void SpatialIndex::clear() {
  ++contentVersion_;
  doClear();
  circles_.clear();
  visible_.clear();
  count_ = 0;
  counters_ = {};
  validateAfter(*this, "clear");
}

void SpatialIndex::maintain() {
  ++contentVersion_;
  counters_ = {};
  doMaintain();
  validateAfter(*this, "maintain");
}

void SpatialIndex::doBuild(std::span<const Item> items) {
  for (const Item& item : items) doInsert(item.id, item.circle);
}

void SpatialIndex::doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) {
  for (std::size_t i = 0; i < ids.size(); ++i) doUpdate(ids[i], old[i], circles_[ids[i]]);
}

// ---------------------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------------------

// Every query is const: a caller without a context gets a local one, and the structure keeps nothing.
void SpatialIndex::checkQueryPoint(Vec2 p, const char* what) const {
  if (!isValidPoint(p)) throw InvalidInput(name_ + ": " + what + ": point must be finite and within 1e15");
}

void SpatialIndex::checkQueryBox(const Box& box, const char* what) const {
  if (!isValidPoint(box.min) || !isValidPoint(box.max) || box.min.x > box.max.x || box.min.y > box.max.y)
    throw InvalidInput(name_ + ": " + what + ": box must be finite with min <= max");
}

void SpatialIndex::queryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext* ctx) const {
  checkQueryPoint(p, "queryPoint");
  out.clear();
  QueryContext local;
  doQueryPoint(p, out, ctx ? *ctx : local);
}

void SpatialIndex::queryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext* ctx) const {
  checkCircle(query, "queryCircle");
  out.clear();
  QueryContext local;
  doQueryCircle(query, out, ctx ? *ctx : local);
}

void SpatialIndex::queryBox(const Box& box, std::vector<ItemId>& out, QueryContext* ctx) const {
  checkQueryBox(box, "queryBox");
  out.clear();
  QueryContext local;
  doQueryBox(box, out, ctx ? *ctx : local);
}

void SpatialIndex::rayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext* ctx) const {
  if (!isValidPoint(segment.start) || !isValidPoint(segment.end)) {
    throw InvalidInput(name_ + ": rayCast: segment end points must be finite and within 1e15");
  }
  out.clear();
  QueryContext local;
  doRayCast(segment, out, ctx ? *ctx : local);
  std::sort(out.begin(), out.end(), rayHitLess);
}

std::optional<RayHit> SpatialIndex::rayCastFirst(const Segment& segment, QueryContext* ctx) const {
  if (!isValidPoint(segment.start) || !isValidPoint(segment.end)) {
    throw InvalidInput(name_ + ": rayCastFirst: segment end points must be finite and within 1e15");
  }
  QueryContext local;
  return doRayCastFirst(segment, ctx ? *ctx : local);
}

void SpatialIndex::findPairs(std::vector<Pair>& out) {
  out.clear();
  counters_ = {};
  doFindPairs(out);
}

namespace {

void checkCone(const std::string& name, const char* call, const ViewCone& cone) {
  if (!isValidPoint(cone.origin) || !isValidPoint(cone.direction) || !std::isfinite(cone.halfAngle) ||
      !(cone.halfAngle > 0.0f) || !std::isfinite(cone.farDistance) || !(cone.farDistance > 0.0f) ||
      cone.farDistance > kMaxCoordinate) {
    throw InvalidInput(name + ": " + call +
                       ": cone needs a finite origin and direction, halfAngle > 0, farDistance > 0");
  }
}

}  // namespace

void SpatialIndex::queryCone(const ViewCone& cone, std::vector<ItemId>& out, QueryContext* ctx) const {
  checkCone(name_, "queryCone", cone);
  out.clear();
  QueryContext local;
  doVisibleSet(cone, out, ctx ? *ctx : local);
}

void SpatialIndex::cullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) {
  checkCone(name_, "cullView", cone);
  entered.clear();
  left.clear();
  counters_ = {};
  doCullView(cone, entered, left);
}

void SpatialIndex::doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) {
  scratchIds_.clear();
  QueryContext ctx;
  doVisibleSet(cone, scratchIds_, ctx);
  counters_ = ctx.counters;
  std::set_difference(scratchIds_.begin(), scratchIds_.end(), visible_.begin(), visible_.end(),
                      std::back_inserter(entered));
  std::set_difference(visible_.begin(), visible_.end(), scratchIds_.begin(), scratchIds_.end(),
                      std::back_inserter(left));
  visible_.swap(scratchIds_);
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

std::string SpatialIndex::validate() const {
  std::size_t present = 0;
  for (const Circle& c : circles_) {
    if (std::isnan(c.radius)) continue;
    ++present;
    if (!isValidCircle(c)) return name_ + ": item table holds an invalid circle " + describe(c);
  }
  if (present != count_) {
    return name_ + ": item table holds " + std::to_string(present) + " items but size() is " +
           std::to_string(count_);
  }
  return doValidate();
}

}  // namespace st
