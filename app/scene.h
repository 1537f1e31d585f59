// Scene presets: a named set of model parameters and a camera, stored as
// assets/scenes/NAME.json (docs/scenes.md gives the format). Loading validates
// every field; a problem comes back as ONE line of text naming the file and the
// field, which the command line prints before exiting with code 2.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ui/camera.h"
#include "base/result.h"
#include "sim/sim_types.h"

namespace vksim {

struct Scene {
  std::string name;         // a safe file name: 1 to 64 of [A-Za-z0-9_-]; the file is NAME.json
  std::string description;  // one sentence; the overlay shows it when the scene is loaded
  ModelParams params;
  OrbitCamera camera;
};

// Every error below is one line of text (no newline) saying what is wrong and
// where, "FILE: field 'FIELD': PROBLEM (got VALUE)" for a bad field, with
// exit code kExitUsage (a scene is the user's input).

inline constexpr size_t kMaxSceneNameLength = 64;

// The directories searched for scenes, highest priority first. If the
// environment variable VKSIM_SCENE_DIR is set (and not empty) it is the only
// entry, existing or not. Otherwise: ../share/vkcuda-sim/scenes next to the
// running executable (an installed copy), then the source tree's assets/scenes
// baked in at build time; each only if it exists as a directory. May be empty.
std::vector<std::filesystem::path> sceneDirectories();

// Scene names (file stems of *.json) found in sceneDirectories(), sorted and
// without duplicates; a name in an earlier directory hides the same name in a
// later one. Files are not opened, so a listed scene may still fail to load.
std::vector<std::string> listScenes();

// True for 1 to kMaxSceneNameLength characters, each of [A-Za-z0-9_-].
bool isSafeSceneName(std::string_view name);

// Loads and validates a scene. `nameOrPath` is a file path if it contains a
// '/' or ends in ".json"; otherwise a scene name looked up in
// sceneDirectories(). Errors: unreadable file, malformed JSON (with
// nlohmann's line and column), a JSON value that is not an object, a missing
// required field (name, model), an unknown or repeated field, a wrong type, an
// out-of-range value, a name that differs from the file's stem, and
// "unknown scene 'NAME' (available: A, B, ...)".
Result<Scene> loadScene(const std::string& nameOrPath);

// Parses scene JSON held in memory; `source` names it in error messages (a
// path, usually). The stem of `source` is not checked against the name.
Result<Scene> parseScene(std::string_view jsonText, const std::string& source);

// The scene as the JSON text that saveScene writes: every field, two-space
// indent, floats written as the shortest decimal that reads back to the same
// float, a trailing newline. Bytes of name or description that are not UTF-8
// are written as U+FFFD.
std::string sceneToJson(const Scene& scene);

// Writes DIRECTORY/NAME.json after validating the scene with the rules that
// loadScene applies, so every saved file loads again. The file appears
// complete or not at all: the text goes to a temporary file in the same
// directory, which is renamed over the target. Refuses an unsafe name, a
// directory that does not exist, and an existing file unless `overwrite`. On
// failure no file (temporary or target) is left behind and an existing target
// is unchanged. Returns the path written, DIRECTORY/NAME.json.
Result<std::filesystem::path> saveScene(const Scene& scene, const std::filesystem::path& directory,
                                        bool overwrite = false);

}  // namespace vksim
