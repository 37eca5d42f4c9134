#pragma once
/// \file
/// The spheretest program as a library entry: a program that registers structures of its own (see
/// examples/sweep_and_prune_window.cpp) opens the full window, or the headless report, with them beside
/// the library's. Link `spheretest::app` from `find_package(spheretest COMPONENTS app)`.

#include "spheretest/registry.hpp"

namespace st::app {

/// The structures the spheretest program offers: every structure of core, then the two peers.
StructureRegistry defaultRegistry();

/// Runs the spheretest program with the command line `argc`/`argv` and the structures of `registry`
/// (brute force first): the window where there is a display, else or with --headless the report. Returns
/// the program's exit status. `assetsDirectory`, when given, is where the window finds its data
/// (share/spheretest/assets of the installed package) unless $SPHERETEST_ASSETS names another.
int runApp(int argc, char** argv, StructureRegistry registry, const char* assetsDirectory = nullptr);

}  // namespace st::app
