#include "run_config.hpp"

#include "spheretest/app.hpp"
#include "spheretest/peers.hpp"

namespace st::app {

namespace {

StructureRegistry& registryInUse() {
  static StructureRegistry registry = defaultRegistry();
  return registry;
}

}  // namespace

StructureRegistry defaultRegistry() {
  StructureRegistry r = StructureRegistry::withCoreStructures();
  registerPeerStructures(r);
  return r;
}

const StructureRegistry& appRegistry() {
  return registryInUse();
}

void useRegistry(StructureRegistry registry) {
  registryInUse() = std::move(registry);
}

std::unique_ptr<Simulation> makeSimulation(const RunConfig& config) {
  if (config.sceneFile) {
    return std::make_unique<Simulation>(config.scenario, config.scene, loadSceneFile(*config.sceneFile),
                                        config.seed);
  }
  return std::make_unique<Simulation>(config.scenario, config.scene, config.count, config.seed);
}

std::unique_ptr<SpatialIndex> makeStructure(const RunConfig& config, const std::string& name) {
  std::unique_ptr<SpatialIndex> structure = appRegistry().create(name);
  const std::string prefix = name + ".";
  for (const auto& [key, value] : config.structureParams) {
    if (key.rfind(prefix, 0) == 0) structure->setParam(key.substr(prefix.size()), value);
  }
  return structure;
}

const char* queryKindName(std::optional<QueryShape> kind) {
  return kind ? queryShapeName(*kind) : "none";
}

}  // namespace st::app
