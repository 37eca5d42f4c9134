#pragma once
/// \file
/// One frame and one query, written once. The app, the benchmark, the panels and the tests step a structure
/// through a frame and run a query of any shape with these, so that every figure they show is measured the
/// same way.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spheretest/geometry.hpp"
#include "spheretest/hash.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/spatial_index.hpp"

namespace st {

/// CPU time of the calling thread in ms: on a busy machine it shows what the work cost, which wall time does
/// not.
double threadCpuMs();

/// `n` with its thousands separated by commas ("20,000"), as reports print counts.
std::string formatCount(std::uint64_t n);

/// Order-independent hash of one frame's pair set: equal sets give equal values whatever their order.
std::uint64_t pairSetHash(std::span<const Pair> pairs);

/// Folds one frame's pair-set hash into a running checksum over frames.
inline std::uint64_t foldFrameChecksum(std::uint64_t running, std::uint64_t frameHash) {
  return (running ^ frameHash) * 0x100000001b3ull + kGoldenGamma;
}

// ---------------------------------------------------------------------------------------------------------
// One query of any shape
// ---------------------------------------------------------------------------------------------------------

/// A query of any shape, described by the fields its shape reads.
struct Query {
  QueryShape shape = QueryShape::Point;  ///< which query this is
  Vec2 at;                  ///< the point; the circle's or box's centre; a segment's start; the eye
  Vec2 to;                  ///< a segment's end; where a cone looks (its length is the far distance)
  float radius = 0.0f;      ///< a circle's radius
  Vec2 halfExtent;          ///< a box's half size
  float halfAngle = 0.45f;  ///< half a cone's field of view, radians
  std::uint32_t k = 8;      ///< how many circles a nearest query asks for

  /// The circle of a circle query.
  Circle circle() const { return {at, radius}; }
  /// The box of a box query.
  Box box() const {
    return {{at.x - halfExtent.x, at.y - halfExtent.y}, {at.x + halfExtent.x, at.y + halfExtent.y}};
  }
  /// The segment of a segment query.
  Segment segment() const { return {at, to}; }
  /// The cone of a cone query (a zero-length look points along +x with a tiny far distance).
  ViewCone cone() const;
};

/// The query of `shape` at `at` of size `size`: a circle's radius, a box's half side, a segment's length
/// along `direction` (a unit vector), a cone's far distance along it.
Query makeQuery(QueryShape shape, Vec2 at, float size, Vec2 direction = {1.0f, 0.0f});

/// The command-line name of a shape: "point", "circle", "box", "ray", "cone" or "nearest".
const char* queryShapeName(QueryShape shape);

/// The shape a command-line name stands for, if any.
std::optional<QueryShape> parseQueryShape(std::string_view name);

/// What one query found.
struct QueryAnswer {
  std::vector<ItemId> ids;   ///< ids found, sorted for a cone; for a segment or nearest, in their order
  std::vector<RayHit> hits;  ///< a segment's hits, ordered by rayHitLess (empty for other shapes)
  std::vector<NearestHit> nearest;  ///< a nearest query's circles, ordered by nearestHitLess (else empty)
  QueryCounters counters;           ///< the work the query did

  /// Number of results.
  std::size_t count() const { return ids.size(); }
};

/// Runs one query: any number of threads may query one structure at once, each with its own answer. A
/// trace, when given, receives the walk's steps, and a detail its structure-specific figures (both cleared
/// first). Throws InvalidInput for a shape the structure rejects.
void runQuery(const SpatialIndex& index, const Query& query, QueryAnswer& answer, QueryTrace* trace = nullptr,
              QueryDetail* detail = nullptr);

// ---------------------------------------------------------------------------------------------------------
// One frame
// ---------------------------------------------------------------------------------------------------------

/// What one structure did in one frame, phase by phase.
struct FrameResult {
  double updateMs = 0.0;       ///< wall time of updateBatch + maintain
  double pairsMs = 0.0;        ///< wall time of the pair search (0 when it was not run)
  double updateCpuMs = 0.0;    ///< CPU time of the calling thread during the update
  double pairsCpuMs = 0.0;     ///< CPU time of the calling thread during the pair search
  QueryCounters update;        ///< work of updateBatch + maintain, summed
  QueryCounters pairs;         ///< work of the pair search
  bool pairsSearched = false;  ///< whether the pair search ran
};

/// Hands moved circles to the structure (updateBatch + maintain), then, when `findPairs` is set, finds
/// every overlapping pair into `pairs`.
FrameResult advanceStructure(SpatialIndex& index, std::span<const ItemId> movedIds,
                             std::span<const Circle> movedCircles, std::vector<Pair>& pairs,
                             bool findPairs = true);

/// advanceStructure with the circles the simulation's last step moved. Steps nothing: callers that run
/// several structures on one simulation step it once and call this for each.
FrameResult advanceStructure(SpatialIndex& index, const Simulation& simulation, std::vector<Pair>& pairs,
                             bool findPairs = true);

/// One whole frame of one structure: the simulation's step, then advanceStructure. `simulateMs`, when
/// given, receives the step's wall time.
FrameResult stepFrame(Simulation& simulation, SpatialIndex& index, std::vector<Pair>& pairs,
                      bool findPairs = true, double* simulateMs = nullptr);

}  // namespace st
