// Reads a scene file, the CSV that `spheretest --scene-file` takes (a header line, then x,y,radius[,static]
// per circle), and prints what is in it: circles, static ones, radii, bounds and the overlapping pairs.
//
// Usage: scene_counts FILE.csv [STRUCTURE]   (default structure: aabb-tree)

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <spheretest/registry.hpp>
#include <spheretest/scene.hpp>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: scene_counts FILE.csv [STRUCTURE]\n");
    return 2;
  }
  std::vector<st::SceneCircle> scene;
  std::unique_ptr<st::SpatialIndex> index;
  try {
    scene = st::loadSceneFile(argv[1]);
    index = st::StructureRegistry::withCoreStructures().create(argc > 2 ? argv[2] : "aabb-tree");
  } catch (const st::SceneFileError& error) {
    std::fprintf(stderr, "scene_counts: %s\n", error.what());
    return 2;
  } catch (const st::InvalidInput& error) {
    std::fprintf(stderr, "scene_counts: %s\n", error.what());
    return 2;
  }

  std::vector<st::Item> items;
  std::size_t statics = 0;
  for (const st::SceneCircle& entry : scene) {
    items.push_back({static_cast<st::ItemId>(items.size()), entry.circle});
    statics += entry.isStatic;
  }
  index->build(items);  // one call for a whole scene; insert() would do the same one circle at a time
  std::vector<st::Pair> pairs;
  index->findPairs(pairs);

  std::printf("%s: %zu circles (%zu static, %zu moving)\n", argv[1], scene.size(), statics,
              scene.size() - statics);
  if (!scene.empty()) {
    st::Box bounds = st::boundsOf(scene.front().circle);
    float smallest = scene.front().circle.radius, largest = smallest;
    for (const st::SceneCircle& entry : scene) {
      bounds = st::boxUnion(bounds, st::boundsOf(entry.circle));
      smallest = std::min(smallest, entry.circle.radius);
      largest = std::max(largest, entry.circle.radius);
    }
    std::printf("radius %g .. %g; bounds (%g, %g) .. (%g, %g)\n", smallest, largest, bounds.min.x,
                bounds.min.y, bounds.max.x, bounds.max.y);
  }
  const st::IndexStats stats = index->stats();
  std::printf("%zu overlapping pairs; %s: %zu nodes, depth %d, %zu bytes\n", pairs.size(),
              index->name().c_str(), stats.nodes, stats.maxDepth, stats.memoryBytes);
  return 0;
}
