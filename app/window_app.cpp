#include "window_app.hpp"

namespace st::app {

std::optional<int> runWindowApp(const RunConfig&) { return std::nullopt; }

}  // namespace st::app
