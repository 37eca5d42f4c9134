// spheretest: the window by default, the headless report with --headless or where there is no display.

#include "spheretest/app.hpp"

int main(int argc, char** argv) {
  return st::app::runApp(argc, argv, st::app::defaultRegistry());
}
