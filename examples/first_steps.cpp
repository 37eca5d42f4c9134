// The smallest complete use of the library: three circles in a grid, one moves, then pairs and a query.
#include <cstdio>
#include <memory>
#include <vector>

#include <spheretest/structures.hpp>

int main() {
  std::unique_ptr<st::SpatialIndex> index = st::makeGrid();  // or any other factory in structures.hpp
  index->insert(0, st::Circle{{0.0f, 0.0f}, 2.0f});          // ids are yours: small dense integers
  index->insert(1, st::Circle{{3.0f, 0.0f}, 1.5f});
  index->insert(2, st::Circle{{40.0f, 40.0f}, 1.0f});
  index->update(2, st::Circle{{4.0f, 2.0f}, 1.0f});  // circle 2 moves next to circle 1
  std::vector<st::Pair> pairs;
  index->findPairs(pairs);  // every overlapping pair once, a < b
  for (const st::Pair& pair : pairs) std::printf("circles %u and %u overlap\n", pair.a, pair.b);
  std::vector<st::ItemId> near;
  index->queryCircle(st::Circle{{0.0f, 0.0f}, 3.0f}, near);
  std::printf("%zu circles, %zu pairs, %zu within 3 of the origin\n", index->size(), pairs.size(),
              near.size());
}
