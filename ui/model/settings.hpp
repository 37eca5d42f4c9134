#pragma once
/// \file A small persistent key=value store for the window's settings (the layout itself is imgui.ini).

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace st::ui {

/// String values by key, with typed accessors; unknown or malformed values fall back to the default.
class Settings {
 public:
  /// Reads `path`; a missing or unreadable file leaves the store empty.
  void load(const std::string& path);
  /// Writes every value to `path`; returns false when the file cannot be written.
  bool save(const std::string& path) const;

  /// Whether a key was stored.
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  /// A flag.
  bool getBool(const std::string& key, bool fallback) const;
  /// A number.
  double getNumber(const std::string& key, double fallback) const;
  /// A string.
  std::string getString(const std::string& key, const std::string& fallback) const;
  /// Stores a flag.
  void setBool(const std::string& key, bool value);
  /// Stores a number.
  void setNumber(const std::string& key, double value);
  /// Stores a string (newlines are not allowed and are replaced by spaces).
  void setString(const std::string& key, std::string value);
  /// Forgets a key (it then reads as its fallback).
  void erase(const std::string& key) { values_.erase(key); }

 private:
  std::map<std::string, std::string> values_;
};

/// The settings of one part: every key is stored as "<prefix><key>".
class SettingsSection {
 public:
  /// A view of `settings` under `prefix`.
  SettingsSection(Settings& settings, std::string prefix) : settings_(settings), prefix_(std::move(prefix)) {}
  /// A flag.
  bool getBool(std::string_view key, bool fallback) const { return settings_.getBool(full(key), fallback); }
  /// A number.
  double getNumber(std::string_view key, double fallback) const {
    return settings_.getNumber(full(key), fallback);
  }
  /// A string.
  std::string getString(std::string_view key, const std::string& fallback) const {
    return settings_.getString(full(key), fallback);
  }
  /// Stores a flag.
  void setBool(std::string_view key, bool value) { settings_.setBool(full(key), value); }
  /// Stores a number.
  void setNumber(std::string_view key, double value) { settings_.setNumber(full(key), value); }
  /// Stores a string.
  void setString(std::string_view key, std::string value) {
    settings_.setString(full(key), std::move(value));
  }

 private:
  std::string full(std::string_view key) const;
  Settings& settings_;
  std::string prefix_;
};

/// The directory for persistent settings: $XDG_CONFIG_HOME/spheretest, else $HOME/.config/spheretest;
/// "" when neither variable is set. The directory is not created here.
std::string settingsDirectory();

}  // namespace st::ui
