#pragma once
/// \file The command line: parsing and validation into a RunConfig. Scripts rely on this contract.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "run_config.hpp"

namespace st::app {

/// Exit status for bad input (unknown names, out-of-range values, unreadable scene files).
inline constexpr int kExitBadInput = 2;
/// Exit status when a structure disagreed with the oracle in a headless run.
inline constexpr int kExitDisagreement = 3;

/// Result of parsing: a configuration to run, or an exit code (help, listings, or an error already printed).
struct ParseResult {
  std::optional<RunConfig> config;  ///< set when there is something to run
  int exitCode = 0;                 ///< meaningful when config is empty
};

/// Parses argv; prints listings, help and one-line errors to `out` / `err`.
ParseResult parseCommandLine(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// Parses one `--set KEY=VALUE` item into `config`; throws InvalidInput listing the valid keys.
void applySetting(RunConfig& config, const std::string& setting);

}  // namespace st::app
