#include "ui/model/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace st::ui {

void Settings::load(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    values_[line.substr(0, eq)] = line.substr(eq + 1);
  }
}

bool Settings::save(const std::string& path) const {
  // Write then rename so that a crash mid-write never leaves a truncated file behind.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return false;
    out << "# spheretest window settings (rewritten on exit)\n";
    for (const auto& [key, value] : values_) out << key << '=' << value << '\n';
    if (!out) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

bool Settings::getBool(const std::string& key, bool fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "1") return true;
  if (it->second == "0") return false;
  return fallback;
}

double Settings::getNumber(const std::string& key, double fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::istringstream in(it->second);
  double value = 0;
  if (!(in >> value)) return fallback;
  return value;
}

std::string Settings::getString(const std::string& key, const std::string& fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

void Settings::setBool(const std::string& key, bool value) {
  values_[key].assign(1, value ? '1' : '0');
}

void Settings::setNumber(const std::string& key, double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  values_[key] = out.str();
}

void Settings::setString(const std::string& key, std::string value) {
  for (char& c : value) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  values_[key] = std::move(value);
}

std::string SettingsSection::full(std::string_view key) const {
  std::string name;
  name.reserve(prefix_.size() + key.size());
  name.append(prefix_);
  name.append(key);
  return name;
}

std::string settingsDirectory() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/spheretest";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.config/spheretest";
  }
  return "";
}

}  // namespace st::ui
