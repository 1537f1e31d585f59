#include "app/scene.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "app/files.h"
#include "base/config.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;
// ordered_json keeps the file's key order, so the first unknown field reported
// is the first one in the file and saved files list fields in the documented order.
using Json = nlohmann::ordered_json;

// Scene files are under a kilobyte (the presets: 300 to 600 bytes); a file
// past 64 KiB is a wrong path, not a scene, and is refused before it is read
// whole (docs/scenes.md).
constexpr size_t kMaxSceneFileBytes = 64 << 10;
constexpr size_t kMaxShownValueLength = 60;

constexpr const char* kSceneFields[] = {"name",    "description", "model",        "grid",         "timeStep",
                                        "damping", "dropInterval", "dropRadius",  "dropAmplitude", "courant",
                                        "amplitude", "waveNumberX", "waveNumberZ", "seed",          "camera"};
constexpr const char* kCameraFields[] = {"yaw", "pitch", "distance", "target", "fovY"};

// A closed or half-open interval for a float field; `text` replaces the
// printed upper bound where the decimal would hide its meaning.
struct FloatRange {
  double low;
  bool lowInclusive;
  double high;
  const char* highText = nullptr;
};

// The ranges are part of the file format (docs/scenes.md lists them). Camera
// limits match the clamps in camera.cpp, so a loaded camera is one the user
// could have reached with the mouse.
constexpr FloatRange kTimeStepRange{0.0, false, 1.0};
constexpr FloatRange kAmplitudeRange{-1.0, true, 1.0};
constexpr FloatRange kWaveNumberRange{-1000.0, true, 1000.0};
constexpr FloatRange kCourantRange{0.0, false, double(kMaxCourant), "1/sqrt(2) = 0.70710678"};
constexpr FloatRange kDampingRange{0.0, true, 100.0};
constexpr FloatRange kDropRadiusRange{0.0, false, 1.0};
constexpr FloatRange kDropAmplitudeRange{-1.0, true, 1.0};
constexpr FloatRange kYawRange{-1000.0, true, 1000.0};
constexpr FloatRange kPitchRange{-1.5, true, 1.5};
constexpr FloatRange kDistanceRange{0.5, true, 20.0};
constexpr FloatRange kTargetRange{-100.0, true, 100.0};
constexpr FloatRange kFovYRange{0.1, true, 3.0};
constexpr uint64_t kMaxDropInterval = 1000000;

// The shortest decimal that reads back as the same float: files stay readable
// ("0.1", not "0.10000000149011612") and save-then-load is exact.
std::string formatFloat(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string formatBound(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

Json floatJson(float value) { return Json(std::strtod(formatFloat(value).c_str(), nullptr)); }

// Every message is one line: dump() escapes control characters in strings, and
// long values are cut.
std::string showValue(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxShownValueLength) text = text.substr(0, kMaxShownValueLength) + "...";
  return text;
}

// Line breaks become spaces; other control characters (from a key or a
// path) are shown as \xNN (printableText).
std::string oneLine(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return printableText(text);
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Collects the first problem only: the caller prints one line, and later
// problems are often consequences of the first.
class SceneChecker {
 public:
  explicit SceneChecker(std::string source) : source_(std::move(source)) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

  void fail(const std::string& field, const std::string& problem) {
    if (!failed()) error_ = oneLine(source_ + ": field '" + field + "': " + problem);
  }
  void failWithValue(const std::string& field, const std::string& problem, const Json& value) {
    fail(field, problem + " (got " + showValue(value) + ")");
  }
  void failFile(const std::string& problem) {
    if (!failed()) error_ = oneLine(source_ + ": " + problem);
  }

  // Unknown fields are errors so that a typo ("gird") does not silently fall
  // back to the default.
  template <size_t N>
  void rejectUnknownFields(const Json& object, const std::string& prefix, const char* const (&known)[N]) {
    for (const auto& item : object.items()) {
      // A named reference, not a structured binding: clang 14 (the fuzz
      // build's compiler) cannot capture a binding in the lambda below.
      const std::string& key = item.key();
      if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return key == k; }) !=
          std::end(known))
        continue;
      const char* closest = nullptr;
      size_t closestDistance = 3;  // suggest only near misses
      for (const char* candidate : known) {
        const size_t distance = editDistance(key, candidate);
        if (distance < closestDistance) {
          closest = candidate;
          closestDistance = distance;
        }
      }
      std::string hint;
      if (closest) {
        hint = "did you mean '" + prefix + closest + "'?";
      } else {
        hint = "known fields:";
        for (const char* candidate : known) hint += std::string(" ") + candidate;
      }
      fail(prefix + key, "unknown field (" + hint + ")");
      return;
    }
  }

  void readFloat(const Json& object, const std::string& prefix, const char* key, const FloatRange& range,
                 float& out) {
    if (failed() || !object.contains(key)) return;
    readFloatValue(object.at(key), prefix + key, range, out);
  }

  void readFloatValue(const Json& value, const std::string& field, const FloatRange& range, float& out) {
    if (failed()) return;
    const std::string expected = "must be a number " + describe(range);
    if (!value.is_number()) return failWithValue(field, expected, value);
    const double number = value.get<double>();
    // Converting a double outside float's range is undefined, so that is
    // checked before the conversion. Bounds are checked on the float that the
    // simulation will use, which lets 1/sqrt(2) written to 17 digits pass.
    if (!std::isfinite(number) || std::fabs(number) > double(std::numeric_limits<float>::max()))
      return failWithValue(field, expected, value);
    const float narrowed = static_cast<float>(number);
    const double used = narrowed;
    const bool aboveLow = range.lowInclusive ? used >= range.low : used > range.low;
    if (!aboveLow || used > range.high) return failWithValue(field, expected, value);
    out = narrowed;
  }

  void readUnsigned(const Json& object, const char* key, uint64_t low, uint64_t high, uint64_t& out) {
    if (failed() || !object.contains(key)) return;
    const Json& value = object.at(key);
    const std::string expected = "must be an integer from " + std::to_string(low) + " to " + std::to_string(high);
    // nlohmann stores non-negative integers as unsigned and negative ones as
    // signed; 512.0 and 1e3 are floats and so are rejected as "not an integer".
    if (!value.is_number_unsigned()) return failWithValue(key, expected, value);
    const uint64_t number = value.get<uint64_t>();
    if (number < low || number > high) return failWithValue(key, expected, value);
    out = number;
  }

  void readString(const Json& object, const char* key, std::string& out) {
    if (failed() || !object.contains(key)) return;
    const Json& value = object.at(key);
    if (!value.is_string()) return failWithValue(key, "must be a string", value);
    out = value.get<std::string>();
  }

  void require(const Json& object, const char* key) {
    if (!failed() && !object.contains(key)) fail(key, "missing (it is required)");
  }

 private:
  static std::string describe(const FloatRange& range) {
    const std::string high = range.highText ? range.highText : formatBound(range.high);
    if (range.lowInclusive) return "from " + formatBound(range.low) + " to " + high;
    return "greater than " + formatBound(range.low) + " and at most " + high;
  }

  std::string source_;
  std::string error_;
};

void readCamera(SceneChecker& checker, const Json& value, OrbitCamera& camera) {
  if (!value.is_object()) return checker.failWithValue("camera", "must be an object", value);
  checker.rejectUnknownFields(value, "camera.", kCameraFields);
  checker.readFloat(value, "camera.", "yaw", kYawRange, camera.yaw);
  checker.readFloat(value, "camera.", "pitch", kPitchRange, camera.pitch);
  checker.readFloat(value, "camera.", "distance", kDistanceRange, camera.distance);
  if (!checker.failed() && value.contains("target")) {
    const Json& target = value.at("target");
    if (!target.is_array() || target.size() != 3)
      return checker.failWithValue("camera.target", "must be an array of 3 numbers [x, y, z]", target);
    float* const components[] = {&camera.targetX, &camera.targetY, &camera.targetZ};
    for (size_t i = 0; i < 3; ++i)
      checker.readFloatValue(target.at(i), "camera.target[" + std::to_string(i) + "]", kTargetRange,
                             *components[i]);
  }
  checker.readFloat(value, "camera.", "fovY", kFovYRange, camera.fovY);
}

// The one validation path: loadScene uses it on parsed files and saveScene on
// the JSON it is about to write.
Result<Scene> sceneFromJson(const Json& document, const std::string& source) {
  SceneChecker checker(source);
  if (!document.is_object()) {
    checker.failFile("must hold a JSON object (got " + showValue(document) + ")");
    return fail(checker.error());
  }
  Scene scene;
  checker.rejectUnknownFields(document, "", kSceneFields);
  checker.require(document, "name");
  checker.require(document, "model");

  checker.readString(document, "name", scene.name);
  if (!checker.failed() && !isSafeSceneName(scene.name))
    checker.failWithValue("name",
                          "must be 1 to " + std::to_string(kMaxSceneNameLength) +
                              " characters from A-Z a-z 0-9 _ -",
                          document.at("name"));
  checker.readString(document, "description", scene.description);

  if (!checker.failed()) {
    const Json& model = document.at("model");
    const auto known = std::find_if(std::begin(kModelNames), std::end(kModelNames), [&](const auto& m) {
      return model.is_string() && model.get<std::string>() == m.name;
    });
    std::string names;
    for (const auto& m : kModelNames) names += (names.empty() ? "\"" : " or \"") + std::string(m.name) + "\"";
    if (known == std::end(kModelNames))
      checker.failWithValue("model", "must be " + names, model);
    else
      scene.params.model = known->value;
  }

  ModelParams& params = scene.params;
  uint64_t grid = params.grid, dropInterval = params.dropInterval;
  checker.readUnsigned(document, "grid", kMinGrid, kMaxGrid, grid);
  checker.readFloat(document, "", "timeStep", kTimeStepRange, params.timeStep);
  checker.readFloat(document, "", "damping", kDampingRange, params.damping);
  checker.readUnsigned(document, "dropInterval", 0, kMaxDropInterval, dropInterval);
  checker.readFloat(document, "", "dropRadius", kDropRadiusRange, params.dropRadius);
  checker.readFloat(document, "", "dropAmplitude", kDropAmplitudeRange, params.dropAmplitude);
  checker.readFloat(document, "", "courant", kCourantRange, params.courant);
  checker.readFloat(document, "", "amplitude", kAmplitudeRange, params.amplitude);
  checker.readFloat(document, "", "waveNumberX", kWaveNumberRange, params.waveNumberX);
  checker.readFloat(document, "", "waveNumberZ", kWaveNumberRange, params.waveNumberZ);
  checker.readUnsigned(document, "seed", 0, std::numeric_limits<uint64_t>::max(), params.seed);
  if (!checker.failed() && document.contains("camera")) readCamera(checker, document.at("camera"), scene.camera);

  if (checker.failed()) return fail(checker.error());
  params.grid = static_cast<uint32_t>(grid);
  params.dropInterval = static_cast<uint32_t>(dropInterval);
  return scene;
}

Json sceneToJsonObject(const Scene& scene) {
  const ModelParams& p = scene.params;
  const OrbitCamera& c = scene.camera;
  Json document;
  document["name"] = scene.name;
  document["description"] = scene.description;
  document["model"] = toString(p.model);
  document["grid"] = p.grid;
  document["timeStep"] = floatJson(p.timeStep);
  document["damping"] = floatJson(p.damping);
  document["dropInterval"] = p.dropInterval;
  document["dropRadius"] = floatJson(p.dropRadius);
  document["dropAmplitude"] = floatJson(p.dropAmplitude);
  document["courant"] = floatJson(p.courant);
  document["amplitude"] = floatJson(p.amplitude);
  document["waveNumberX"] = floatJson(p.waveNumberX);
  document["waveNumberZ"] = floatJson(p.waveNumberZ);
  document["seed"] = p.seed;
  document["camera"] = {{"yaw", floatJson(c.yaw)},
                        {"pitch", floatJson(c.pitch)},
                        {"distance", floatJson(c.distance)},
                        {"target", {floatJson(c.targetX), floatJson(c.targetY), floatJson(c.targetZ)}},
                        {"fovY", floatJson(c.fovY)}};
  return document;
}

// Bytes that are not UTF-8 in a description become U+FFFD rather than an
// exception: the file must stay valid JSON for the next load.
std::string dumpScene(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// Nesting a scene may have: the document, `camera`, `camera.target` are 3.
// A little room above that lets a field of the wrong shape ("grid": [[1]])
// reach its own message ("must be an integer"); anything deeper is refused
// as it is read, before the parser builds it.
constexpr size_t kMaxSceneDepth = 8;

// Thrown from the parser callback to stop the parse at the first level too
// deep: nlohmann's callback can drop a value but not end the parse.
struct SceneTooDeep {};

// The parser callback. nlohmann keeps the last of two equal keys without a
// word; a repeated field is as likely a mistake as a typo, so the first
// repeat is recorded with its dotted path. It also bounds the nesting.
//
// Each open object or array keeps only its own step of the path (its key,
// or "[]" inside an array), and the dotted path is joined only for a
// message. Keeping the whole path in every level copied it once per level:
// quadratic in the depth, 61 s for 100 KB of '[' before the depth bound.
struct SceneParseGuard {
  struct Frame {
    bool isArray = false;
    std::string step;  // this level's part of the path: its key, "[]" in an array, "" at the top
    std::set<std::string> keys;
  };
  std::vector<Frame> frames;
  std::string pendingKey;
  std::string duplicatePath;
  std::string tooDeepPath;

  // The dotted path of the level that `frames` ends with, then `last`.
  std::string pathTo(const std::string& last) const {
    std::string path;
    for (const Frame& frame : frames)
      path += frame.step.empty() || frame.step == "[]" || path.empty() ? frame.step : "." + frame.step;
    if (last.empty()) return path;
    return path.empty() ? last : path + "." + last;
  }

  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start: {
        Frame frame;
        frame.isArray = event == Event::array_start;
        frame.step = frames.empty() ? "" : frames.back().isArray ? "[]" : pendingKey;
        frames.push_back(std::move(frame));
        if (frames.size() > kMaxSceneDepth) {
          tooDeepPath = pathTo("");
          throw SceneTooDeep{};
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        if (!frames.empty()) frames.pop_back();
        break;
      case Event::key: {
        pendingKey = parsed.get<std::string>();
        if (!frames.back().keys.insert(pendingKey).second && duplicatePath.empty())
          duplicatePath = pathTo(pendingKey);
        break;
      }
      case Event::value:
        break;
    }
    return true;
  }
};

Result<Scene> loadSceneFile(const fs::path& path) {
  const Result<std::string> text = readFileBounded(path.string(), "scene file", kMaxSceneFileBytes);
  if (!text) return fail(oneLine(text.error().message));
  Result<Scene> result = parseScene(*text, path.string());
  // The file name is what listScenes shows and what --scene takes, so a name
  // field that disagrees would make the scene answer to two names.
  if (result && result->name != path.stem().string()) {
    SceneChecker checker(path.string());
    checker.failWithValue("name", "must match the file name '" + path.stem().string() + "'",
                          Json(result->name));
    return fail(checker.error());
  }
  return result;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

std::vector<fs::path> sceneDirectories() {
  const char* environment = std::getenv(kSceneDirEnvironment);
  if (environment && *environment) return {fs::path(environment)};

  std::vector<fs::path> directories;
  std::error_code ec;
  // An installed binary finds its scenes beside it; /proc/self/exe is the
  // running file even when started through a symlink or from another cwd.
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = (executable.parent_path() / "../share/vkcuda-sim/scenes").lexically_normal();
    if (fs::is_directory(installed, ec)) directories.push_back(installed);
  }
#ifdef VKSIM_SOURCE_SCENE_DIR
  const fs::path source = VKSIM_SOURCE_SCENE_DIR;
  if (fs::is_directory(source, ec) && std::find(directories.begin(), directories.end(), source) == directories.end())
    directories.push_back(source);
#endif
  return directories;
}

std::vector<std::string> listScenes() {
  std::set<std::string> names;
  for (const fs::path& directory : sceneDirectories()) {
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& path = it->path();
      if (path.extension() == ".json" && it->is_regular_file(ec) && isSafeSceneName(path.stem().string()))
        names.insert(path.stem().string());
    }
  }
  return {names.begin(), names.end()};
}

bool isSafeSceneName(std::string_view name) {
  if (name.empty() || name.size() > kMaxSceneNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

Result<Scene> parseScene(std::string_view jsonText, const std::string& source) {
  if (jsonText.size() > kMaxSceneFileBytes)
    return vksim::fail(oneLine(source + ": larger than " + std::to_string(kMaxSceneFileBytes >> 10) +
                               " KiB, not a scene file"));
  SceneParseGuard guard;
  Json document;
  try {
    document = Json::parse(jsonText.begin(), jsonText.end(), std::ref(guard));
  } catch (const SceneTooDeep&) {
    SceneChecker checker(source);
    checker.failFile("nested more than " + std::to_string(kMaxSceneDepth) + " levels deep (at '" +
                     guard.tooDeepPath + "'; a scene nests 3: the file, camera, camera.target)");
    return vksim::fail(checker.error());
  } catch (const Json::exception& e) {
    // nlohmann's text starts "[json.exception.parse_error.101] "; the rest
    // carries the line and column, which is what the user needs.
    std::string message = e.what();
    if (const size_t end = message.find("] "); message.rfind("[json.exception.", 0) == 0 && end != std::string::npos)
      message = message.substr(end + 2);
    return vksim::fail(oneLine(source + ": malformed JSON: " + message));
  }
  if (!guard.duplicatePath.empty()) {
    SceneChecker checker(source);
    checker.fail(guard.duplicatePath, "appears more than once");
    return vksim::fail(checker.error());
  }
  return sceneFromJson(document, source);
}

Result<Scene> loadScene(const std::string& nameOrPath) {
  const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json");
  if (isPath) return loadSceneFile(nameOrPath);

  if (isSafeSceneName(nameOrPath)) {
    for (const fs::path& directory : sceneDirectories()) {
      const fs::path candidate = directory / (nameOrPath + ".json");
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return loadSceneFile(candidate);
    }
  }
  const std::vector<std::string> available = listScenes();
  if (!available.empty())
    return fail(oneLine("unknown scene '" + nameOrPath + "' (available: " + joinNames(available) + ")"));
  std::string searched;
  for (const fs::path& directory : sceneDirectories()) searched += (searched.empty() ? "" : ", ") + directory.string();
  return fail(oneLine("unknown scene '" + nameOrPath + "' (no scenes found" +
                      (searched.empty() ? std::string() : " in " + searched) + "; set " +
                      kSceneDirEnvironment + " to a directory of NAME.json files)"));
}

std::string sceneToJson(const Scene& scene) { return dumpScene(sceneToJsonObject(scene)); }

Result<fs::path> saveScene(const Scene& scene, const fs::path& directory, bool overwrite) {
  // The name becomes a path component; checking it first keeps "../x" or
  // "a/b" from ever reaching the file system.
  if (!isSafeSceneName(scene.name)) {
    SceneChecker checker(directory.string());
    checker.failWithValue("name",
                          "must be 1 to " + std::to_string(kMaxSceneNameLength) +
                              " characters from A-Z a-z 0-9 _ -",
                          Json(scene.name));
    return fail(checker.error());
  }
  const fs::path target = directory / (scene.name + ".json");
  const Json document = sceneToJsonObject(scene);
  if (Result<Scene> check = sceneFromJson(document, target.string()); !check)
    return fail(check.error().message);

  std::error_code ec;
  if (!fs::is_directory(directory, ec))
    return fail(oneLine(directory.string() + ": cannot save scene: not an existing directory"));
  // symlink_status, so that a dangling link also counts as "exists". Between
  // this check and the rename another process could create the target; this
  // app has one user saving from one window, and POSIX rename has no
  // rename-without-replace.
  if (!overwrite && fs::exists(fs::symlink_status(target, ec)))
    return fail(oneLine(target.string() + ": already exists; refusing to overwrite it"));
  if (Result<> written = writeFileAtomically(target.string(), "scene", dumpScene(document)); !written) {
    // Scene messages start with the file (docs/scenes.md); the writer's say
    // "cannot write scene FILE: REASON", so the reason is moved behind it.
    std::string reason = written.error().message;
    const std::string prefix = "cannot write scene " + target.string() + ": ";
    if (reason.starts_with(prefix)) reason.erase(0, prefix.size());
    return fail(oneLine(target.string() + ": cannot save scene: " + reason));
  }
  return target;
}

}  // namespace vksim
