#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/scene.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kShippedScenes = {"calm", "heavy", "rain", "showcase", "sinewave"};

// A fresh directory under the system temp dir, removed (made writable first)
// at the end of the test.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (fs::temp_directory_path() / "vksim-scene-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets or clears VKSIM_SCENE_DIR for one test and puts back what was there.
class ScopedSceneDirectory {
 public:
  explicit ScopedSceneDirectory(const char* value) {
    if (const char* old = std::getenv("VKSIM_SCENE_DIR")) old_ = old;
    if (value)
      ::setenv("VKSIM_SCENE_DIR", value, 1);
    else
      ::unsetenv("VKSIM_SCENE_DIR");
  }
  ~ScopedSceneDirectory() {
    if (old_)
      ::setenv("VKSIM_SCENE_DIR", old_->c_str(), 1);
    else
      ::unsetenv("VKSIM_SCENE_DIR");
  }
  ScopedSceneDirectory(const ScopedSceneDirectory&) = delete;
  ScopedSceneDirectory& operator=(const ScopedSceneDirectory&) = delete;

 private:
  std::optional<std::string> old_;
};

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

std::string readText(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> entries(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The contract for every error: one line, naming the file and (where there is
// one) the field.
void expectOneLineNaming(const std::string& error, const std::string& file, const std::string& field) {
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(error.find('\r'), std::string::npos) << error;
  EXPECT_EQ(error.rfind(file + ": ", 0), 0u) << "does not start with the file: " << error;
  if (!field.empty()) {
    EXPECT_NE(error.find("field '" + field + "'"), std::string::npos) << error;
  }
}

// A scene with every field away from its default, and floats that do not have
// short decimal forms.
Scene makeUnusualScene(const std::string& name) {
  Scene scene;
  scene.name = name;
  scene.description = "Every field \"differs\" from its default; unicode: \xc3\xa9.";
  ModelParams& p = scene.params;
  p.model = ModelKind::sinewave;
  p.grid = 8192;
  p.timeStep = 1.0f / 240.0f;
  p.amplitude = -0.123456789f;
  p.waveNumberX = 0.1f;
  p.waveNumberZ = -999.5f;
  p.courant = kMaxCourant;
  p.damping = 1e-7f;
  p.dropInterval = 0;
  p.dropRadius = 1.0f / 3.0f;
  p.dropAmplitude = -0.0625f;
  p.seed = std::numeric_limits<uint64_t>::max();
  OrbitCamera& c = scene.camera;
  c.yaw = -3.14159265f;
  c.pitch = -1.5f;
  c.distance = 19.99f;
  c.targetX = 0.3f;
  c.targetY = -0.7f;
  c.targetZ = 1e-3f;
  c.fovY = 1.2345678f;
  return scene;
}

void expectSameScene(const Scene& a, const Scene& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.params.model, b.params.model);
  EXPECT_EQ(a.params.grid, b.params.grid);
  EXPECT_EQ(a.params.timeStep, b.params.timeStep);
  EXPECT_EQ(a.params.amplitude, b.params.amplitude);
  EXPECT_EQ(a.params.waveNumberX, b.params.waveNumberX);
  EXPECT_EQ(a.params.waveNumberZ, b.params.waveNumberZ);
  EXPECT_EQ(a.params.courant, b.params.courant);
  EXPECT_EQ(a.params.damping, b.params.damping);
  EXPECT_EQ(a.params.dropInterval, b.params.dropInterval);
  EXPECT_EQ(a.params.dropRadius, b.params.dropRadius);
  EXPECT_EQ(a.params.dropAmplitude, b.params.dropAmplitude);
  EXPECT_EQ(a.params.seed, b.params.seed);
  EXPECT_EQ(a.camera.yaw, b.camera.yaw);
  EXPECT_EQ(a.camera.pitch, b.camera.pitch);
  EXPECT_EQ(a.camera.distance, b.camera.distance);
  EXPECT_EQ(a.camera.targetX, b.camera.targetX);
  EXPECT_EQ(a.camera.targetY, b.camera.targetY);
  EXPECT_EQ(a.camera.targetZ, b.camera.targetZ);
  EXPECT_EQ(a.camera.fovY, b.camera.fovY);
}

// parseScene on a minimal valid scene plus `extra` fields (a JSON fragment
// starting with a comma, or empty).
Result<Scene> parseWith(const std::string& extra) {
  return parseScene(R"({"name": "x", "model": "ripple")" + extra + "}", "scenes/x.json");
}

TEST(Scene, EveryShippedSceneLoads) {
  const ScopedSceneDirectory environment(nullptr);
  ASSERT_FALSE(sceneDirectories().empty()) << "the source tree's assets/scenes should be found";
  const std::vector<std::string> listed = listScenes();
  for (const std::string& name : kShippedScenes) {
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end());
    const Result<Scene> result = loadScene(name);
    ASSERT_TRUE(result.has_value()) << result.error().message;
    EXPECT_EQ(result->name, name);
    EXPECT_FALSE(result->description.empty());
    EXPECT_EQ(result->description.back(), '.');
  }
  for (const std::string& name : listed)
    EXPECT_TRUE(loadScene(name).has_value()) << loadScene(name).error().message;
}

TEST(Scene, ShippedScenesCoverBothModelsAndTheHeaviestGrid) {
  const ScopedSceneDirectory environment(nullptr);
  const Result<Scene> calm = loadScene("calm"), heavy = loadScene("heavy"), sinewave = loadScene("sinewave");
  ASSERT_TRUE(calm.has_value() && heavy.has_value() && sinewave.has_value());
  EXPECT_EQ(calm->params.model, ModelKind::ripple);
  EXPECT_EQ(calm->params.grid, 512u);
  EXPECT_EQ(sinewave->params.model, ModelKind::sinewave);
  EXPECT_EQ(sinewave->params.grid, 256u);
  for (const std::string& name : kShippedScenes)
    EXPECT_LE(loadScene(name)->params.grid, heavy->params.grid) << name;
}

TEST(Scene, EnvironmentVariableReplacesTheSearchPath) {
  const TemporaryDirectory directory;
  const ScopedSceneDirectory environment(directory.path().c_str());
  ASSERT_EQ(sceneDirectories(), std::vector<fs::path>{directory.path()});
  EXPECT_TRUE(listScenes().empty());
  ASSERT_TRUE(saveScene(makeUnusualScene("mine"), directory.path()).has_value());
  writeText(directory.path() / "notes.txt", "not a scene");
  EXPECT_EQ(listScenes(), std::vector<std::string>{"mine"});
  EXPECT_TRUE(loadScene("mine").has_value());
  EXPECT_FALSE(loadScene("calm").has_value());
}

TEST(Scene, SaveThenLoadRoundTripsEveryField) {
  const TemporaryDirectory directory;
  for (ModelKind model : {ModelKind::sinewave, ModelKind::ripple}) {
    Scene scene = makeUnusualScene(model == ModelKind::ripple ? "round_trip-ripple" : "round_trip-sinewave");
    scene.params.model = model;
    const Result<fs::path> saved = saveScene(scene, directory.path());
    ASSERT_TRUE(saved.has_value()) << saved.error().message;
    EXPECT_EQ((*saved), directory.path() / (scene.name + ".json"));
    EXPECT_EQ(readText((*saved)), sceneToJson(scene));
    const Result<Scene> loaded = loadScene((*saved).string());
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    expectSameScene(*loaded, scene);
  }
}

TEST(Scene, SavedFloatsAreShortDecimals) {
  Scene scene;
  scene.name = "short";
  scene.params.dropRadius = 0.1f;
  const std::string text = sceneToJson(scene);
  EXPECT_NE(text.find("\"dropRadius\": 0.1,"), std::string::npos) << text;
}

TEST(Scene, OptionalFieldsTakeTheStructDefaults) {
  const Result<Scene> result = parseWith("");
  ASSERT_TRUE(result.has_value()) << result.error().message;
  Scene expected;
  expected.name = "x";
  expectSameScene(*result, expected);
  const Result<Scene> sinewave = parseScene(R"({"name": "y", "model": "sinewave"})", "y.json");
  ASSERT_TRUE(sinewave.has_value());
  EXPECT_EQ(sinewave->params.model, ModelKind::sinewave);
}

TEST(Scene, PartialCameraKeepsTheOtherDefaults) {
  const Result<Scene> result = parseWith(R"(, "camera": {"distance": 5})");
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->camera.distance, 5.0f);
  EXPECT_EQ(result->camera.yaw, OrbitCamera{}.yaw);
  EXPECT_EQ(result->camera.fovY, OrbitCamera{}.fovY);
}

TEST(Scene, CourantOfExactlyOneOverSqrtTwoIsAccepted) {
  const Result<Scene> result = parseWith(R"(, "courant": 0.7071067811865476)");
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->params.courant, kMaxCourant);
}

TEST(Scene, UnknownFieldIsOneLineNamingFileAndField) {
  const Result<Scene> typo = parseWith(R"(, "gird": 512)");
  ASSERT_FALSE(typo.has_value());
  EXPECT_EQ(typo.error().message, "scenes/x.json: field 'gird': unknown field (did you mean 'grid'?)");

  const Result<Scene> nested = parseWith(R"(, "camera": {"yawn": 1})");
  ASSERT_FALSE(nested.has_value());
  EXPECT_EQ(nested.error().message,
            "scenes/x.json: field 'camera.yawn': unknown field (did you mean 'camera.yaw'?)");

  const Result<Scene> faraway = parseWith(R"(, "colour": "blue")");
  ASSERT_FALSE(faraway.has_value());
  expectOneLineNaming(faraway.error().message, "scenes/x.json", "colour");
  EXPECT_NE(faraway.error().message.find("known fields: name description model"), std::string::npos)
      << faraway.error().message;
}

TEST(Scene, WrongTypeIsOneLineNamingFileAndField) {
  struct Case {
    std::string json;
    std::string field;
  };
  const std::vector<Case> cases = {
      {R"({"name": "x", "model": "ripple", "grid": "512"})", "grid"},
      {R"({"name": "x", "model": "ripple", "grid": 512.0})", "grid"},
      {R"({"name": "x", "model": "ripple", "grid": true})", "grid"},
      {R"({"name": "x", "model": "ripple", "timeStep": "fast"})", "timeStep"},
      {R"({"name": "x", "model": "ripple", "dropInterval": 2.5})", "dropInterval"},
      {R"({"name": "x", "model": "ripple", "seed": [1]})", "seed"},
      {R"({"name": "x", "model": "ripple", "description": 5})", "description"},
      {R"({"name": "x", "model": 3})", "model"},
      {R"({"name": "x", "model": "ripples"})", "model"},
      {R"({"name": true, "model": "ripple"})", "name"},
      {R"({"name": "x", "model": "ripple", "camera": [1, 2]})", "camera"},
      {R"({"name": "x", "model": "ripple", "camera": {"target": [1, 2]}})", "camera.target"},
      {R"({"name": "x", "model": "ripple", "camera": {"target": [0, "up", 0]}})", "camera.target[1]"},
      {R"({"name": "x", "model": "ripple", "camera": {"pitch": null}})", "camera.pitch"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    const Result<Scene> result = parseScene(c.json, "scenes/x.json");
    ASSERT_FALSE(result.has_value());
    expectOneLineNaming(result.error().message, "scenes/x.json", c.field);
  }
  EXPECT_EQ(parseWith(R"(, "grid": "512")").error().message,
            R"(scenes/x.json: field 'grid': must be an integer from 2 to 8192 (got "512"))");
}

TEST(Scene, OutOfRangeIsOneLineNamingFileAndField) {
  struct Case {
    std::string extra;
    std::string field;
  };
  const std::vector<Case> cases = {
      {R"(, "grid": 1)", "grid"},
      {R"(, "grid": 9000)", "grid"},
      {R"(, "grid": -4)", "grid"},
      {R"(, "timeStep": 0)", "timeStep"},
      {R"(, "timeStep": -0.01)", "timeStep"},
      {R"(, "courant": 0)", "courant"},
      {R"(, "courant": 0.71)", "courant"},
      {R"(, "damping": -1)", "damping"},
      {R"(, "dropInterval": -1)", "dropInterval"},
      {R"(, "dropInterval": 1000001)", "dropInterval"},
      {R"(, "dropRadius": 0)", "dropRadius"},
      {R"(, "dropAmplitude": 2)", "dropAmplitude"},
      {R"(, "amplitude": 1e300)", "amplitude"},
      {R"(, "waveNumberX": 5000)", "waveNumberX"},
      {R"(, "seed": -1)", "seed"},
      {R"(, "name": "bad name")", "name"},
      {R"(, "camera": {"pitch": 2})", "camera.pitch"},
      {R"(, "camera": {"distance": 0.1})", "camera.distance"},
      {R"(, "camera": {"fovY": 3.2})", "camera.fovY"},
      {R"(, "camera": {"target": [0, 0, 500]})", "camera.target[2]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.extra);
    // "name" appears twice in one case on purpose: replace instead of adding.
    const std::string json = c.field == "name" ? R"({"name": "bad name", "model": "ripple"})"
                                               : R"({"name": "x", "model": "ripple")" + c.extra + "}";
    const Result<Scene> result = parseScene(json, "scenes/x.json");
    ASSERT_FALSE(result.has_value());
    expectOneLineNaming(result.error().message, "scenes/x.json", c.field);
  }
  EXPECT_EQ(parseWith(R"(, "grid": 9000)").error().message,
            "scenes/x.json: field 'grid': must be an integer from 2 to 8192 (got 9000)");
  EXPECT_EQ(
      parseWith(R"(, "courant": 0.8)").error().message,
      "scenes/x.json: field 'courant': must be a number greater than 0 and at most 1/sqrt(2) = 0.70710678 "
      "(got 0.8)");
}

TEST(Scene, MissingRequiredFieldIsOneLineNamingFileAndField) {
  const Result<Scene> noModel = parseScene(R"({"name": "x", "grid": 64})", "scenes/x.json");
  ASSERT_FALSE(noModel.has_value());
  EXPECT_EQ(noModel.error().message, "scenes/x.json: field 'model': missing (it is required)");
  const Result<Scene> noName = parseScene(R"({"model": "ripple"})", "scenes/x.json");
  ASSERT_FALSE(noName.has_value());
  expectOneLineNaming(noName.error().message, "scenes/x.json", "name");
}

TEST(Scene, RepeatedFieldIsOneLineNamingFileAndField) {
  const Result<Scene> top = parseWith(R"(, "grid": 64, "grid": 128)");
  ASSERT_FALSE(top.has_value());
  EXPECT_EQ(top.error().message, "scenes/x.json: field 'grid': appears more than once");
  const Result<Scene> nested = parseWith(R"(, "camera": {"yaw": 1, "yaw": 2})");
  ASSERT_FALSE(nested.has_value());
  EXPECT_EQ(nested.error().message, "scenes/x.json: field 'camera.yaw': appears more than once");
}

// The repeat's path is joined from each level's own step: inside an array
// element it carries "[]", as the message has always said.
TEST(Scene, RepeatedFieldInsideAnArrayElementNamesItsPath) {
  const Result<Scene> result = parseWith(R"(, "camera": {"target": [{"a": 1, "a": 2}]})");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message, "scenes/x.json: field 'camera.target[].a': appears more than once");
}

// 100 KB of '[' took 61 s to be refused: each level copied the whole path
// above it (quadratic in the depth). A scene nests 3 levels; past 8 the parse
// stops at once, with the place it stopped.
TEST(Scene, NestingPastEightLevelsIsRefusedWhereItIsRead) {
  const Result<Scene> deep = parseScene(std::string(60000, '['), "scenes/x.json");
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().message,
            "scenes/x.json: nested more than 8 levels deep (at '[][][][][][][][]'; a scene nests 3: the file, "
            "camera, camera.target)");
  EXPECT_EQ(deep.error().exitCode, kExitUsage);
  // Eight levels (the file and seven arrays) are read; the field is then refused for what it is.
  const Result<Scene> eight = parseWith(R"(, "x": [[[[[[[1]]]]]]])");
  ASSERT_FALSE(eight.has_value());
  EXPECT_NE(eight.error().message.find("field 'x': unknown field"), std::string::npos) << eight.error().message;
  const Result<Scene> nine = parseWith(R"(, "x": [[[[[[[[1]]]]]]]])");
  ASSERT_FALSE(nine.has_value());
  EXPECT_NE(nine.error().message.find("nested more than 8 levels deep (at 'x[][][][][][][]'"), std::string::npos)
      << nine.error().message;
}

// A scene is under a kilobyte: past 64 KiB the text is refused before it is
// parsed, in memory as from a file (whose reading stops at the limit).
TEST(Scene, MoreThan64KiBIsRefusedUnparsed) {
  const std::string large = R"({"name": "x", "model": "ripple", "description": ")" + std::string(64 << 10, 'a') + "\"}";
  const Result<Scene> inMemory = parseScene(large, "scenes/x.json");
  ASSERT_FALSE(inMemory.has_value());
  EXPECT_EQ(inMemory.error().message, "scenes/x.json: larger than 64 KiB, not a scene file");
  const TemporaryDirectory directory;
  const fs::path path = directory.path() / "x.json";
  writeText(path, large);
  const Result<Scene> fromFile = loadScene(path.string());
  ASSERT_FALSE(fromFile.has_value());
  EXPECT_EQ(fromFile.error().message, path.string() + ": larger than 64 KiB, not a scene file");
  // Just under the limit, a long description is still a scene.
  const std::string fits = R"({"name": "x", "model": "ripple", "description": ")" + std::string(60000, 'a') + "\"}";
  EXPECT_TRUE(parseScene(fits, "scenes/x.json").has_value());
}

TEST(Scene, MalformedJsonIsOneLineWithFileAndPosition) {
  const TemporaryDirectory directory;
  const fs::path path = directory.path() / "broken.json";
  writeText(path, "{\n  \"name\": \"broken\",\n  \"model\": \"ripple\",\n}\n");
  const Result<Scene> result = loadScene(path.string());
  ASSERT_FALSE(result.has_value());
  expectOneLineNaming(result.error().message, path.string(), "");
  EXPECT_NE(result.error().message.find(": malformed JSON: parse error at line 4, column 1"),
            std::string::npos)
      << result.error().message;

  writeText(path, "");
  const Result<Scene> empty = loadScene(path.string());
  ASSERT_FALSE(empty.has_value());
  expectOneLineNaming(empty.error().message, path.string(), "");
  EXPECT_NE(empty.error().message.find("malformed JSON"), std::string::npos) << empty.error().message;

  writeText(path, "[1, 2, 3]");
  const Result<Scene> array = loadScene(path.string());
  ASSERT_FALSE(array.has_value());
  EXPECT_EQ(array.error().message, path.string() + ": must hold a JSON object (got [1,2,3])");
}

TEST(Scene, NameMustMatchTheFileName) {
  const TemporaryDirectory directory;
  const fs::path path = directory.path() / "alpha.json";
  writeText(path, R"({"name": "beta", "model": "ripple"})");
  const Result<Scene> result = loadScene(path.string());
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message,
            path.string() + ": field 'name': must match the file name 'alpha' (got \"beta\")");
}

TEST(Scene, MissingFileIsOneLineNamingIt) {
  const Result<Scene> result = loadScene("/nonexistent-vksim/scene.json");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message,
            "/nonexistent-vksim/scene.json: cannot read scene file: No such file or directory");
}

TEST(Scene, UnknownSceneNameListsTheAvailableOnes) {
  const TemporaryDirectory directory;
  const ScopedSceneDirectory environment(directory.path().c_str());
  ASSERT_TRUE(saveScene(makeUnusualScene("beta"), directory.path()).has_value());
  ASSERT_TRUE(saveScene(makeUnusualScene("alpha"), directory.path()).has_value());
  EXPECT_EQ(loadScene("foo").error().message, "unknown scene 'foo' (available: alpha, beta)");
  EXPECT_EQ(loadScene("a b").error().message, "unknown scene 'a b' (available: alpha, beta)");

  const ScopedSceneDirectory shipped(nullptr);
  const Result<Scene> result = loadScene("foo");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos);
  EXPECT_NE(
      result.error().message.find("unknown scene 'foo' (available: calm, heavy, rain, showcase, sinewave"),
      std::string::npos)
      << result.error().message;
}

TEST(Scene, UnknownSceneNameWithNoScenesSaysWhereItLooked) {
  const ScopedSceneDirectory environment("/nonexistent-vksim-scenes");
  const Result<Scene> result = loadScene("calm");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message,
            "unknown scene 'calm' (no scenes found in /nonexistent-vksim-scenes; set VKSIM_SCENE_DIR to a "
            "directory of NAME.json files)");
}

TEST(Scene, SafeSceneNames) {
  EXPECT_TRUE(isSafeSceneName("calm"));
  EXPECT_TRUE(isSafeSceneName("Rain_2-b"));
  EXPECT_TRUE(isSafeSceneName(std::string(kMaxSceneNameLength, 'a')));
  for (const std::string name : {"", "a b", "a.b", "../x", "a/b", "a\\b", "caf\xc3\xa9", "x\n", "-*"})
    EXPECT_FALSE(isSafeSceneName(name)) << name;
  EXPECT_FALSE(isSafeSceneName(std::string(kMaxSceneNameLength + 1, 'a')));
}

TEST(Scene, SaveRefusesUnsafeNames) {
  const TemporaryDirectory directory;
  for (const std::string name : {"", "../escape", "a/b", "a b", "x.json", "new\nline"}) {
    SCOPED_TRACE(name);
    Scene scene = makeUnusualScene("placeholder");
    scene.name = name;
    const Result<fs::path> result = saveScene(scene, directory.path());
    ASSERT_FALSE(result.has_value());
    expectOneLineNaming(result.error().message, directory.path().string(), "name");
  }
  EXPECT_TRUE(entries(directory.path()).empty());
  EXPECT_FALSE(fs::exists(directory.path().parent_path() / "escape.json"));
}

TEST(Scene, SaveRefusesInvalidValuesAndWritesNothing) {
  const TemporaryDirectory directory;
  Scene scene = makeUnusualScene("too_big");
  scene.params.grid = 9000;
  const Result<fs::path> result = saveScene(scene, directory.path());
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message, (directory.path() / "too_big.json").string() +
                                        ": field 'grid': must be an integer from 2 to 8192 (got 9000)");
  EXPECT_TRUE(entries(directory.path()).empty());
}

TEST(Scene, SaveRefusesAnExistingFileUnlessAskedToOverwrite) {
  const TemporaryDirectory directory;
  Scene scene = makeUnusualScene("keep");
  scene.description = "First.";
  ASSERT_TRUE(saveScene(scene, directory.path()).has_value());
  scene.description = "Second.";
  const Result<fs::path> refused = saveScene(scene, directory.path());
  ASSERT_FALSE(refused.has_value());
  const std::string path = (directory.path() / "keep.json").string();
  EXPECT_EQ(refused.error().message, path + ": already exists; refusing to overwrite it");
  EXPECT_EQ(loadScene(path)->description, "First.");

  ASSERT_TRUE(saveScene(scene, directory.path(), /*overwrite=*/true).has_value());
  EXPECT_EQ(loadScene(path)->description, "Second.");
  EXPECT_EQ(entries(directory.path()), std::vector<std::string>{"keep.json"});
}

TEST(Scene, SaveIntoAMissingDirectoryFailsWithoutCreatingIt) {
  const TemporaryDirectory directory;
  const fs::path missing = directory.path() / "not-there";
  const Result<fs::path> result = saveScene(makeUnusualScene("lost"), missing);
  ASSERT_FALSE(result.has_value());
  expectOneLineNaming(result.error().message, missing.string(), "");
  EXPECT_FALSE(fs::exists(missing));
}

TEST(Scene, SaveIntoAnUnwritableDirectoryLeavesNoFile) {
  const TemporaryDirectory directory;
  const fs::path readOnly = directory.path() / "read-only";
  fs::create_directory(readOnly);
  fs::permissions(readOnly, fs::perms::owner_read | fs::perms::owner_exec);
  std::vector<fs::path> unwritable;
  // Root ignores permission bits, so there the read-only directory is
  // writable; /proc refuses new files even to root.
  if (::access(readOnly.c_str(), W_OK) != 0) unwritable.push_back(readOnly);
  if (fs::is_directory("/proc") && ::access("/proc", W_OK) == 0 && !fs::exists("/proc/vksim-unwritable.json"))
    unwritable.push_back("/proc");
  if (unwritable.empty()) GTEST_SKIP() << "no unwritable directory available";
  for (const fs::path& target : unwritable) {
    SCOPED_TRACE(target.string());
    const Result<fs::path> result = saveScene(makeUnusualScene("vksim-unwritable"), target);
    ASSERT_FALSE(result.has_value());
    expectOneLineNaming(result.error().message, (target / "vksim-unwritable.json").string(), "");
    EXPECT_NE(result.error().message.find("cannot save scene"), std::string::npos) << result.error().message;
    for (const auto& entry : fs::directory_iterator(target))
      EXPECT_EQ(entry.path().filename().string().find("vksim-unwritable"), std::string::npos) << entry.path();
  }
}

TEST(Scene, FailedRenameRemovesTheTemporaryFile) {
  const TemporaryDirectory directory;
  // A non-empty directory where the file should go: the temporary file is
  // written, then rename fails.
  fs::create_directory(directory.path() / "blocked.json");
  writeText(directory.path() / "blocked.json" / "inside", "x");
  const Result<fs::path> result =
      saveScene(makeUnusualScene("blocked"), directory.path(), /*overwrite=*/true);
  ASSERT_FALSE(result.has_value());
  expectOneLineNaming(result.error().message, (directory.path() / "blocked.json").string(), "");
  EXPECT_EQ(entries(directory.path()), std::vector<std::string>{"blocked.json"});
}

}  // namespace
}  // namespace vksim
