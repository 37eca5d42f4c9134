#include "spheretest/peers.hpp"

namespace st {

void registerPeerStructures(StructureRegistry& registry) {
  (void)registry;
  // (peers register below this line)
}

}  // namespace st
