// Scene files: the CSV reader behind --scene-file, strict about every field and bounded in memory.

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "spheretest/scene.hpp"

namespace st {
namespace {

std::string fileError(const std::string& path, std::size_t line, const std::string& what) {
  std::ostringstream s;
  s << path;
  if (line > 0) s << ":" << line;
  s << ": " << what;
  return s.str();
}

// Parses one number field strictly: the whole field must be a finite number.
bool parseField(const std::string& field, double& value) {
  std::size_t begin = field.find_first_not_of(" \t");
  std::size_t end = field.find_last_not_of(" \t\r");
  if (begin == std::string::npos) return false;
  const std::string trimmed = field.substr(begin, end - begin + 1);
  char* stop = nullptr;
  errno = 0;
  value = std::strtod(trimmed.c_str(), &stop);
  return stop == trimmed.c_str() + trimmed.size() && errno != ERANGE && std::isfinite(value);
}

}  // namespace

std::vector<SceneCircle> loadSceneFile(const std::string& path) {
  constexpr std::size_t kMaxLine = 4096;
  constexpr std::size_t kMaxCircles = 10'000'000;
  std::error_code typeError;
  if (std::filesystem::is_directory(path, typeError))
    throw SceneFileError(fileError(path, 0, "is a directory, not a scene file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneFileError(fileError(path, 0, "cannot open file"));
  std::vector<SceneCircle> out;
  std::string line;
  std::size_t lineNumber = 0;
  bool sawHeader = false;
  int columns = 0;
  // Reads one line without ever holding more than kMaxLine characters of it.
  auto readLine = [&](std::string& text) -> bool {
    text.clear();
    char c;
    bool any = false;
    while (in.get(c)) {
      any = true;
      if (c == '\n') return true;
      if (text.size() >= kMaxLine) {
        throw SceneFileError(
            fileError(path, lineNumber, "line longer than " + std::to_string(kMaxLine) + " characters"));
      }
      text.push_back(c);
    }
    return any;
  };
  while (true) {
    ++lineNumber;
    if (!readLine(line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Spreadsheets save UTF-8 with a byte-order mark in front of the header.
    if (lineNumber == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are allowed
    std::vector<std::string> fields;
    std::stringstream split(line);
    std::string field;
    while (std::getline(split, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.push_back("");
    if (!sawHeader) {
      auto trim = [](std::string s) {
        s.erase(0, s.find_first_not_of(" \t"));
        s.erase(s.find_last_not_of(" \t") + 1);
        return s;
      };
      const bool ok = (fields.size() == 3 || fields.size() == 4) && trim(fields[0]) == "x" &&
                      trim(fields[1]) == "y" && trim(fields[2]) == "radius" &&
                      (fields.size() == 3 || trim(fields[3]) == "static");
      if (!ok)
        throw SceneFileError(
            fileError(path, lineNumber, "expected the header line 'x,y,radius' or 'x,y,radius,static'"));
      sawHeader = true;
      columns = static_cast<int>(fields.size());
      continue;
    }
    if (static_cast<int>(fields.size()) != columns) {
      throw SceneFileError(fileError(
          path, lineNumber,
          "expected " + std::to_string(columns) + " columns, found " + std::to_string(fields.size())));
    }
    double v[4] = {0, 0, 0, 0};
    static const char* const kNames[4] = {"x", "y", "radius", "static"};
    for (int i = 0; i < columns; ++i) {
      if (!parseField(fields[i], v[i])) {
        throw SceneFileError(
            fileError(path, lineNumber, std::string("column '") + kNames[i] + "' is not a finite number"));
      }
    }
    SceneCircle sc;
    sc.circle = {{static_cast<float>(v[0]), static_cast<float>(v[1])}, static_cast<float>(v[2])};
    if (v[2] < 0) throw SceneFileError(fileError(path, lineNumber, "radius must be >= 0"));
    if (!isValidCircle(sc.circle)) {
      throw SceneFileError(fileError(path, lineNumber, "coordinates and radius must be within 1e15"));
    }
    if (columns == 4) {
      if (v[3] != 0 && v[3] != 1)
        throw SceneFileError(fileError(path, lineNumber, "column 'static' must be 0 or 1"));
      sc.isStatic = v[3] == 1;
    }
    if (out.size() >= kMaxCircles)
      throw SceneFileError(fileError(path, lineNumber, "more than 10,000,000 circles"));
    out.push_back(sc);
  }
  if (!sawHeader)
    throw SceneFileError(fileError(path, 0, "empty file: expected the header line 'x,y,radius'"));
  if (out.empty()) throw SceneFileError(fileError(path, lineNumber - 1, "no circles after the header"));
  return out;
}

}  // namespace st
