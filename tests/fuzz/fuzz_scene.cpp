// libFuzzer target: scene files (app/scene.h), the JSON a user downloads or
// edits by hand. Beyond "no crash, no sanitizer report, no slow input" it
// checks what docs/scenes.md promises of every input:
//   - a refusal is one line, with exit code 2;
//   - an accepted scene saves as JSON that loads again as the same scene
//     (sceneToJson, then parseScene: the second save equals the first).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "app/scene.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const vksim::Result<vksim::Scene> scene = vksim::parseScene(text, "fuzz.json");
  if (!scene) {
    vksim::fuzz::expectOneLineRefusal(scene.error(), "fuzz.json: ");
    return 0;
  }
  const std::string saved = vksim::sceneToJson(*scene);
  const vksim::Result<vksim::Scene> again = vksim::parseScene(saved, "saved.json");
  vksim::fuzz::expect(again.has_value(), "an accepted scene, saved, does not load again", saved);
  vksim::fuzz::expect(vksim::sceneToJson(*again) == saved, "a saved scene loads as a different scene", saved);
  return 0;
}
