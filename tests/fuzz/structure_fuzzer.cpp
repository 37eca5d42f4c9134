// Fuzz target: the input picks a structure and drives a random sequence of inserts, moves, resizes,
// removals, batched updates and parameter changes, with hostile values mixed in; after every step the
// structure must agree with brute force on every query type and pass validate(). Built as a libFuzzer
// target with clang (SPHERETEST_FUZZ=ON) and, always, as a replay executable that runs the kept corpus.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "spheretest/oracle_check.hpp"
#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"

namespace {

// Reads the fuzz input as a stream of bytes; past the end it yields zeros.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t word() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }

  // Mostly ordinary coordinates, sometimes the values that break careless structures.
  float coordinate() {
    const std::uint8_t kind = byte();
    switch (kind % 16) {
      case 0:
        return 50.0f;  // the area's centre line
      case 1:
        return 1e15f;
      case 2:
        return -1e15f;
      case 3:
        return std::numeric_limits<float>::quiet_NaN();
      case 4:
        return std::numeric_limits<float>::infinity();
      case 5:
        return static_cast<float>(word()) * 1000.0f - 30000.0f;  // far outside
      default:
        return static_cast<float>(word()) / 655.35f;  // 0 .. 100
    }
  }
  float radius() {
    const std::uint8_t kind = byte();
    switch (kind % 16) {
      case 0:
        return 0.0f;
      case 1:
        return -1.0f;
      case 2:
        return 1e15f;
      case 3:
        return std::numeric_limits<float>::quiet_NaN();
      case 4:
        return 500.0f;  // larger than the whole area
      default:
        return static_cast<float>(word()) / 2000.0f;  // 0 .. 32
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

const st::StructureRegistry& fuzzRegistry() {
  static const st::StructureRegistry registry = [] {
    st::StructureRegistry r = st::StructureRegistry::withCoreStructures();
    st::registerPeerStructures(r);
    return r;
  }();
  return registry;
}

[[noreturn]] void fail(const char* structure, const std::string& problem) {
  std::fprintf(stderr, "fuzz: %s disagrees with brute force: %s\n", structure, problem.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const auto& entries = fuzzRegistry().all();
  const st::StructureInfo& info = entries[in.byte() % entries.size()];
  auto subject = info.create();
  auto oracle = fuzzRegistry().create("brute");
  st::testing::QueryArea area;
  for (auto* s : {subject.get(), oracle.get()}) s->setWorldHint(area.box);
  st::Rng rng(size);
  int steps = 0;
  // Applies the same call to both structures; both must accept it or both must reject it.
  const auto both = [&](auto&& call) {
    bool subjectThrew = false, oracleThrew = false;
    try {
      call(*subject);
    } catch (const st::InvalidInput&) {
      subjectThrew = true;
    }
    try {
      call(*oracle);
    } catch (const st::InvalidInput&) {
      oracleThrew = true;
    }
    if (subjectThrew != oracleThrew) fail(info.name.c_str(), "one rejected a call the other accepted");
  };
  while (!in.done() && steps < 400) {
    ++steps;
    const std::uint8_t op = in.byte();
    const st::ItemId id = in.byte() % 64;
    switch (op % 8) {
      case 0:
      case 1: {
        const st::Circle c{{in.coordinate(), in.coordinate()}, in.radius()};
        both([&](st::SpatialIndex& s) { s.insert(id, c); });
        break;
      }
      case 2: {  // small move
        if (!oracle->contains(id)) break;
        st::Circle c = oracle->circle(id);
        c.center = {c.center.x + (in.byte() - 128) / 64.0f, c.center.y + (in.byte() - 128) / 64.0f};
        both([&](st::SpatialIndex& s) { s.update(id, c); });
        break;
      }
      case 3: {  // teleport and resize, possibly to something invalid
        const st::Circle c{{in.coordinate(), in.coordinate()}, in.radius()};
        both([&](st::SpatialIndex& s) { s.update(id, c); });
        break;
      }
      case 4:
        both([&](st::SpatialIndex& s) { s.remove(id); });
        break;
      case 5: {  // batched update of every present item
        std::vector<st::ItemId> ids;
        std::vector<st::Circle> circles;
        const float dx = (in.byte() - 128) / 16.0f;
        for (st::ItemId k = 0; k < 64; ++k) {
          if (!oracle->contains(k)) continue;
          st::Circle c = oracle->circle(k);
          c.center.x += dx;
          ids.push_back(k);
          circles.push_back(c);
        }
        both([&](st::SpatialIndex& s) { s.updateBatch(ids, circles); });
        break;
      }
      case 6: {  // change a parameter within its range
        const auto& params = subject->params();
        if (params.empty()) break;
        const st::ParamInfo& p = params[in.byte() % params.size()];
        double v = p.minValue + (std::min(p.maxValue, p.minValue + 64.0) - p.minValue) * (in.byte() / 255.0);
        if (p.integer) v = std::floor(v);
        subject->setParam(p.key, v);
        break;
      }
      case 7: {  // rebuild from scratch with what is there
        std::vector<st::Item> items;
        for (st::ItemId k = 0; k < 64; ++k) {
          if (oracle->contains(k)) items.push_back({k, oracle->circle(k)});
        }
        both([&](st::SpatialIndex& s) { s.build(items); });
        break;
      }
    }
    subject->maintain();
    oracle->maintain();
    const std::string problem = st::testing::compareWithOracle(*subject, *oracle, rng, area, 2);
    if (!problem.empty()) fail(info.name.c_str(), problem);
  }
  return 0;
}

#ifdef SPHERETEST_FUZZ_REPLAY
#include <filesystem>
#include <fstream>
#include <iterator>

// Replays every file of the given corpus directories (or files) once: the kept corpus as a regression test.
int main(int argc, char** argv) {
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i])) files.push_back(entry.path());
    } else {
      files.push_back(argv[i]);
    }
    for (const auto& file : files) {
      std::ifstream stream(file, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(stream)),
                                    std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  std::printf("replayed %zu fuzz inputs: all structures agreed with brute force\n", inputs);
  return inputs > 0 ? 0 : 1;
}
#endif
