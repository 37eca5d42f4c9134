// The spheretest program as a library entry (spheretest/app.hpp): main() is a call to runApp.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "headless_runner.hpp"
#include "spheretest/app.hpp"
#include "window_app.hpp"

namespace st::app {

namespace {

bool displayAvailable() {
  const char* driver = std::getenv("SDL_VIDEODRIVER");
  if (driver && *driver) return true;  // offscreen, kmsdrm, ...: let SDL decide
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

int runReport(const RunConfig& config) {
  std::ostringstream log;
  ProgressLine progress(std::cerr, ProgressLine::stderrIsTerminal(), "spheretest");
  const RunReport report = runHeadless(config, log, &progress);
  progress.finish();
  spdlog::debug("{}", log.str());
  printReport(report, std::cout);
  if (config.reportPath) {
    writeJsonReport(report, *config.reportPath);
    spdlog::info("report written to {}", *config.reportPath);
  }
  if (!allAgree(report)) {
    spdlog::error("{}", report.reference == "brute" ? "a structure disagreed with the brute-force oracle"
                        : report.reference == "consensus"
                            ? "a structure disagreed with the others"
                            : "structures disagreed and nothing settles which is right");
    return kExitDisagreement;
  }
  return 0;
}

}  // namespace

int runApp(int argc, char** argv, StructureRegistry registry, const char* assetsDirectory) {
  if (assetsDirectory && *assetsDirectory) ::setenv("SPHERETEST_ASSETS", assetsDirectory, 0);
  useRegistry(std::move(registry));
  std::shared_ptr<spdlog::logger> logger = spdlog::get("spheretest");
  if (!logger) logger = spdlog::stderr_color_mt("spheretest");
  logger->set_pattern("spheretest: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  if (const char* level = std::getenv("SPHERETEST_LOG")) spdlog::set_level(spdlog::level::from_str(level));

  const ParseResult parsed = parseCommandLine(argc, argv, std::cout, std::cerr);
  if (!parsed.config) return parsed.exitCode;
  const RunConfig& config = *parsed.config;
  try {
    if (!config.headless) {
      if (displayAvailable()) {
        if (const std::optional<int> code = runWindowApp(config)) return *code;
      }
      if (config.scripted() || config.soakSeconds > 0 || config.lessonPath || config.present) {
        const char* option = config.soakSeconds > 0 ? "--soak"
                             : config.recordPath    ? "--record"
                             : config.lessonPath    ? "--lesson"
                             : config.present       ? "--present"
                                                    : "--screenshot";
        std::cerr << "spheretest: error: " << option
                  << " needs a display (try xvfb-run or SDL_VIDEODRIVER=offscreen)\n";
        return kExitBadInput;
      }
      std::cerr << "spheretest: no display available; running the headless report instead\n";
    }
    return runReport(config);
  } catch (const st::InvalidInput& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return kExitBadInput;
  } catch (const st::SceneFileError& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "spheretest: error: out of memory (try a smaller --count)\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "spheretest: error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace st::app
