#pragma once
/// \file The measurements behind the Claims panel: each source document's claim, measured on a scene built
/// for it, with the figures the panel shows and the sentences it draws from them. Nothing here is a stored
/// result: every number comes from running the structures (the seed's own figures are kept only to be shown
/// next to the measured ones). No ImGui here, so the tests run the same code the panel does.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/scene.hpp"

namespace st::claims {

/// Mean work of one query.
struct QueryCost {
  double nodes = 0.0;       ///< nodes (cells) visited per query
  double candidates = 0.0;  ///< exact tests per query
};

// ---------------------------------------------------------------------------------------------------------
// Seed 002: average cells searched per lookup against the cell-size multiplier
// ---------------------------------------------------------------------------------------------------------

/// One multiplier of the seed's table with what the grid did.
struct CellsPerLookupRow {
  double multiplier = 0.0;   ///< cell size / search diameter
  double seedCells = 0.0;    ///< the seed's "avg. cells to search"
  double seedArea = 0.0;     ///< the seed's "cell area" (in search-diameter squares)
  double squareCells = 0.0;  ///< measured: cells read by a square lookup as wide as the search diameter
  double roundCells = 0.0;   ///< measured: cells searched by a circle lookup of that diameter (NaN: missing)
  double itemsPerLookup = 0.0;  ///< measured: exact tests per square lookup
};

/// The seed 002 table measured on a scene of points dense enough that no cell a lookup reads is empty.
struct CellsPerLookup {
  std::string error;                    ///< why the measurement failed, if it did
  std::vector<CellsPerLookupRow> rows;  ///< one per multiplier of the seed's table
  std::size_t points = 0;               ///< points in the scene
  std::size_t lookups = 0;              ///< lookups per multiplier and shape
  double diameter = 0.0;                ///< the search diameter, world units
  double replicatedCells = 0.0;         ///< grid-replicated (cell = diameter): cells read per point lookup
  double replicatedCopies = 0.0;        ///< grid-replicated: stored copies per item (NaN: missing)
};

/// The seed's (multiplier, average cells, cell area) rows, in its order.
std::span<const CellsPerLookupRow> seedCellTable();

/// Builds `points` random points, and for every multiplier m of the seed's table a `grid` with
/// cell_size = m x the search diameter; runs `lookups` square and circle lookups of that diameter at random
/// places and averages the cells each read (its nodesVisited). Also measures the store-in-every-cell variant
/// (`grid-replicated`) with lookups of discs of that diameter.
CellsPerLookup measureCellsPerLookup(const StructureRegistry& registry, std::size_t points,
                                     std::size_t lookups, std::uint64_t seed,
                                     const std::atomic<bool>* cancelled = nullptr);

// ---------------------------------------------------------------------------------------------------------
// Seed 003: the fit-entirely quadtree turns linear on the centre lines, the enneatree and the loose quadtree
// do not
// ---------------------------------------------------------------------------------------------------------

/// Costs at one circle count.
struct CentreLineRow {
  std::size_t count = 0;      ///< circles
  QueryCost fitLines;         ///< fit-quadtree on center-lines
  QueryCost enneaLines;       ///< enneatree on center-lines
  QueryCost fitUniform;       ///< fit-quadtree on uniform
  QueryCost enneaUniform;     ///< enneatree on uniform
  QueryCost looseLines;       ///< loose-quadtree on center-lines
  QueryCost looseUniform;     ///< loose-quadtree on uniform
  double fitRootShare = 0.0;  ///< share of the circles the fit-quadtree keeps in its root (NaN: missing)
};

/// Query cost against the circle count on both scenes.
struct CentreLineCost {
  std::string error;                ///< why the measurement failed, if it did
  std::vector<CentreLineRow> rows;  ///< one per count, ascending
  std::size_t queries = 0;          ///< circle queries per structure, scene and count
  float queryRadius = 0.0f;         ///< their radius (the scenes' largest circle radius)
};

/// Builds fit-quadtree, enneatree and loose-quadtree over the center-lines and uniform scenes of each count
/// (the loose quadtree only where the registry has it) and runs
/// `queries` circle queries at random places of each world.
CentreLineCost measureCentreLineCost(const StructureRegistry& registry, std::span<const std::size_t> counts,
                                     std::size_t queries, std::uint64_t seed,
                                     const std::atomic<bool>* cancelled = nullptr);

/// Growth exponent k of cost ~ count^k between the first and last rows (1: linear, 0: flat).
double growthExponent(const std::vector<CentreLineRow>& rows, double (*cost)(const CentreLineRow&));

// ---------------------------------------------------------------------------------------------------------
// Seed 000: a dense remote cluster leaves the radius tree's query cost unchanged
// ---------------------------------------------------------------------------------------------------------

/// Costs with one cluster size.
struct RemoteClusterRow {
  std::size_t clusterCircles = 0;  ///< circles packed into the far corner
  std::vector<QueryCost> cost;     ///< per structure (RemoteCluster::structures order)
  std::vector<std::size_t> nodes;  ///< per structure: its node count
};

/// The same background circles with remote clusters of growing size.
struct RemoteCluster {
  std::string error;                    ///< why the measurement failed, if it did
  std::vector<std::string> structures;  ///< measured structures, the radius tree first
  std::vector<RemoteClusterRow> rows;   ///< one per cluster size, ascending (the first without a cluster)
  std::size_t background = 0;           ///< circles outside the cluster
  std::size_t queries = 0;              ///< point queries per structure and row
  bool answersUnchanged = true;         ///< every query found the same circles with and without the cluster
};

/// Builds each structure over `background` circles of the remote-cluster scene (cluster_fraction = 0), then
/// over the same circles plus clusters of each size in the far corner, and runs the same `queries` point
/// queries in the quarter away from the cluster.
RemoteCluster measureRemoteCluster(const StructureRegistry& registry, std::vector<std::string> structures,
                                   std::size_t background, std::span<const std::size_t> clusterSizes,
                                   std::size_t queries, std::uint64_t seed,
                                   const std::atomic<bool>* cancelled = nullptr);

// ---------------------------------------------------------------------------------------------------------
// Seed 001: the sphere tree's fast path on the SphereTest scene
// ---------------------------------------------------------------------------------------------------------

/// Another structure's share of moves that took its constant-time path.
struct FastPathPeer {
  std::string structure;  ///< registry name
  std::string figure;     ///< the extra() figure read
  double ratio = 0.0;     ///< its value after the run (NaN: missing)
};

/// Share of moves that stayed inside their parent super-sphere, frame by frame.
struct FastPath {
  std::string error;                ///< why the measurement failed, if it did
  std::size_t count = 0;            ///< circles
  std::size_t frames = 0;           ///< frames simulated
  std::vector<double> perFrame;     ///< last_batch_fast_path_ratio of every frame
  double overall = 0.0;             ///< fast_path_ratio over the whole run
  double settled = 0.0;             ///< mean of perFrame after the first second
  double moves = 0.0;               ///< moves made
  double detached = 0.0;            ///< moves that pierced their parent and were queued
                                    ///< (each figure read from extra() is NaN when missing)
  std::vector<FastPathPeer> peers;  ///< the same scene on structures with a comparable fast path
};

/// Runs the spheretest scene with `count` circles for `frames` steps on the sphere tree (and the AABB tree
/// and loose quadtree, whose fat boxes and loose bounds play the same role), one update batch per frame.
FastPath measureFastPath(const StructureRegistry& registry, std::size_t count, std::size_t frames,
                         std::uint64_t seed, const std::atomic<bool>* cancelled = nullptr);

// ---------------------------------------------------------------------------------------------------------
// Seed 004: collision checks per frame against brute force's
// ---------------------------------------------------------------------------------------------------------

/// One structure's pair search over the run.
struct CollisionRow {
  std::string structure;        ///< registry name
  double checksPerFrame = 0.0;  ///< exact circle-circle tests per frame
  double pairsPerFrame = 0.0;   ///< overlapping pairs found per frame
  bool agrees = true;           ///< found the reference's pairs every frame
};

/// Every structure's collision checks per frame on the same frames.
struct CollisionChecks {
  std::string error;                 ///< why the measurement failed, if it did
  std::size_t count = 0;             ///< circles
  std::size_t frames = 0;            ///< frames run
  std::string scenario;              ///< the scene's scenario
  double bruteChecksPerFrame = 0.0;  ///< brute force's tests per frame: n(n-1)/2
  bool bruteRan = false;             ///< brute force itself ran (else the reference is the majority)
  std::vector<CollisionRow> rows;    ///< per structure, registry order, brute force excluded
  std::size_t smallCount = 0;        ///< circles of the seed-sized scene (n(n-1)/2 just over 4000)
  double smallBrute = 0.0;           ///< brute force's tests per frame there
  double smallQuadtree = 0.0;        ///< the point quadtree's tests per frame there
};

/// Runs every structure of `registry` on `frames` frames of a copy of `start`; brute force runs only up to
/// `bruteLimit` circles (above it its n(n-1)/2 is computed). Also runs a SphereTest scene whose brute force
/// makes just over 4000 checks per frame, the seed's example, on brute force and the point quadtree.
CollisionChecks measureCollisionChecks(const StructureRegistry& registry, const Simulation& start,
                                       std::size_t frames, std::size_t bruteLimit,
                                       const std::atomic<bool>* cancelled = nullptr);

// ---------------------------------------------------------------------------------------------------------
// What the numbers say
// ---------------------------------------------------------------------------------------------------------

/// `pattern` (one printf conversion of a double) applied to `value`, or "missing" where the value is NaN:
/// the figures read from extra() are NaN when a structure does not report them, which must not look like a
/// measured 0.
std::string figureText(const char* pattern, double value);

/// A figure rounded to a whole number with thousands separators ("675,669"); "missing" for NaN.
std::string grouped(double value);

/// Sentences drawn from the measured figures (no fixed verdicts: each compares numbers just measured).
std::vector<std::string> findings(const CellsPerLookup& r);
/// Sentences drawn from the measured figures.
std::vector<std::string> findings(const CentreLineCost& r);
/// Sentences drawn from the measured figures.
std::vector<std::string> findings(const RemoteCluster& r);
/// Sentences drawn from the measured figures.
std::vector<std::string> findings(const FastPath& r);
/// Sentences drawn from the measured figures.
std::vector<std::string> findings(const CollisionChecks& r);

}  // namespace st::claims
