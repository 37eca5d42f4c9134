// spheretest: the window by default, the headless report with --headless or where there is no display.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "headless_runner.hpp"
#include "window_app.hpp"

namespace {

bool displayAvailable() {
  const char* driver = std::getenv("SDL_VIDEODRIVER");
  if (driver && *driver) return true;  // offscreen, kmsdrm, ...: let SDL decide
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

int runReport(const st::app::RunConfig& config) {
  std::ostringstream log;
  st::app::ProgressLine progress(std::cerr, st::app::ProgressLine::stderrIsTerminal(), "spheretest");
  const st::app::RunReport report = st::app::runHeadless(config, log, &progress);
  progress.finish();
  spdlog::debug("{}", log.str());
  st::app::printReport(report, std::cout);
  if (config.reportPath) {
    st::app::writeJsonReport(report, *config.reportPath);
    spdlog::info("report written to {}", *config.reportPath);
  }
  if (!st::app::allAgree(report)) {
    spdlog::error("{}", report.reference == "brute" ? "a structure disagreed with the brute-force oracle"
                        : report.reference == "consensus"
                            ? "a structure disagreed with the others"
                            : "structures disagreed and nothing settles which is right");
    return st::app::kExitDisagreement;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("spheretest");
  logger->set_pattern("spheretest: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  if (const char* level = std::getenv("SPHERETEST_LOG")) spdlog::set_level(spdlog::level::from_str(level));

  const st::app::ParseResult parsed = st::app::parseCommandLine(argc, argv, std::cout, std::cerr);
  if (!parsed.config) return parsed.exitCode;
  const st::app::RunConfig& config = *parsed.config;
  try {
    if (!config.headless) {
      if (displayAvailable()) {
        if (const std::optional<int> code = st::app::runWindowApp(config)) return *code;
      }
      if (config.scripted() || config.soakSeconds > 0 || config.lessonPath || config.present) {
        const char* option = config.soakSeconds > 0 ? "--soak"
                             : config.recordPath    ? "--record"
                             : config.lessonPath    ? "--lesson"
                             : config.present       ? "--present"
                                                    : "--screenshot";
        std::cerr << "spheretest: error: " << option
                  << " needs a display (try xvfb-run or SDL_VIDEODRIVER=offscreen)\n";
        return st::app::kExitBadInput;
      }
      std::cerr << "spheretest: no display available; running the headless report instead\n";
    }
    return runReport(config);
  } catch (const st::InvalidInput& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return st::app::kExitBadInput;
  } catch (const st::SceneFileError& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return st::app::kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "spheretest: error: out of memory (try a smaller --count)\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return 1;
  }
}
