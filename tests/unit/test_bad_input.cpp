// Bad input as a new user types it, GENERATED from a table of every option of
// the command line and of `bench`, plus mutated scene files and input scripts:
// each value must come back from the real parser with exit code 2, one line
// naming what was wrong, and no file created. A new option that the table
// does not list fails OptionTableCoversTheHelp, so the list cannot fall behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "app/cli.h"
#include "cli_parse.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

enum class Kind {
  number,  // whole number in [low, high]
  choice,  // one of a fixed set of names
  size,    // WxH
  device,  // index or UUID
  output,  // output file ending in `extension` ("" for any)
  script,  // --input-script: an existing file, parsed
  scene,   // --scene: a name or a file, parsed
  fault,   // --inject-fault NAME[@FRAME], a test facility
};

struct OptionSpec {
  bool bench;  // an option of the `bench` subcommand
  std::string name;
  Kind kind;
  uint64_t low = 0, high = 0;  // number
  std::string extension;       // output
};

// Every option that takes a value; flags take none and cannot be given a bad one.
std::vector<OptionSpec> optionTable() {
  const uint64_t u64max = std::numeric_limits<uint64_t>::max();
  return {
      {false, "--frames", Kind::number, 0, kMaxFrames},
      {false, "--sim", Kind::choice},
      {false, "--grid", Kind::number, kMinGrid, kMaxGrid},
      {false, "--sync", Kind::choice},
      {false, "--backend", Kind::choice},
      {false, "--size", Kind::size},
      {false, "--seed", Kind::number, 0, u64max},
      {false, "--screenshot", Kind::output, 0, 0, ".png"},
      {false, "--dump-vertices", Kind::output, 0, 0, ""},
      {false, "--device", Kind::device},
      {false, "--switch-sync-every", Kind::number, 0, kMaxFrames},
      {false, "--vsync", Kind::choice},
      {false, "--scene", Kind::scene},
      {false, "--input-script", Kind::script},
      {false, "--transfer", Kind::choice},
      {false, "--wait-strategy", Kind::choice},
      {false, "--texture", Kind::choice},
      {false, "--lod", Kind::choice},
      {false, "--lod-pixels", Kind::number, 1, 64},
      {false, "--memory-owner", Kind::choice},
      {false, "--capture", Kind::output, 0, 0, ".csv"},
      {false, "--trace", Kind::output, 0, 0, ".json"},
      {false, "--warmup", Kind::number, 0, kMaxFrames},
      {false, "--capture-format", Kind::choice},
      {false, "--capture-columns", Kind::choice},
      {false, "--inject-fault", Kind::fault},
      {true, "--grids", Kind::number, kMinGrid, kMaxGrid},
      {true, "--sync", Kind::choice},
      {true, "--transfer", Kind::choice},
      {true, "--wait-strategy", Kind::choice},
      {true, "--lod", Kind::choice},
      {true, "--texture", Kind::choice},
      {true, "--overlay", Kind::choice},
      {true, "--memory-owner", Kind::choice},
      {true, "--frames", Kind::number, 1, kMaxBenchFrames},
      {true, "--warmup", Kind::number, 0, kMaxBenchFrames},
      {true, "--warmup-ms", Kind::number, 0, kMaxWarmupMs},
      {true, "--json", Kind::output, 0, 0, ".json"},
      {true, "--backend", Kind::choice},
      {true, "--sim", Kind::choice},
      {true, "--device", Kind::device},
      {true, "--size", Kind::size},
  };
}

const std::set<std::string> kFlags{"--help",    "--version",   "--headless",
                                   "--list-devices", "--overlay", "--frame-tags"};

std::string writeFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string calmScene() {
  return R"({"name": "calm", "description": "d", "model": "ripple", "grid": 64, "timeStep": 0.016666668,
  "courant": 0.5, "damping": 0.2, "dropInterval": 90, "dropRadius": 0.06, "dropAmplitude": 0.04, "seed": 1,
  "camera": {"yaw": 0.75, "pitch": 0.6, "distance": 3.0, "target": [0.0, 0.0, 0.0], "fovY": 0.7854}})";
}

// Scene files that must be refused: broken JSON, and every field of a good
// scene replaced by values of the wrong type or outside its range.
std::vector<std::string> badScenes() {
  std::vector<std::string> scenes{"", "{", "[]", "null", R"({"name": "calm"})", calmScene() + " trailing"};
  const nlohmann::json good = nlohmann::json::parse(calmScene());
  const std::vector<nlohmann::json> badValues{nullptr, "text", -1e9, 1e9, nlohmann::json::array(), true};
  for (const auto& [key, value] : good.items()) {
    for (const nlohmann::json& bad : badValues) {
      if (key == "description" && bad.is_string()) continue;  // any text is a description
      nlohmann::json mutated = good;
      mutated[key] = bad;
      scenes.push_back(mutated.dump());
    }
    nlohmann::json without = good;
    if (key != "description" && key != "camera") {
      without.erase(key);
      if (key == "name" || key == "model") scenes.push_back(without.dump());  // the required ones
    }
  }
  for (const char* key : {"yaw", "pitch", "distance", "fovY"}) {
    nlohmann::json mutated = good;
    mutated["camera"][key] = 1e9;
    scenes.push_back(mutated.dump());
  }
  nlohmann::json unknown = good;
  unknown["colour"] = "blue";
  scenes.push_back(unknown.dump());
  nlohmann::json wrongName = good;
  wrongName["name"] = "other";  // differs from the file's stem
  scenes.push_back(wrongName.dump());
  return scenes;
}

std::vector<std::string> badScripts(const std::string& dir) {
  return {"hello",
          "at",
          "at x key F1",
          "at -1 key F1",
          "at 99999999999999999999 key F1",
          "at 1.5 key F1",
          "at 1 key",
          "at 1 key NOPE",
          "at 1 key F26",
          "at 1 jump",
          "at 1 click 5",
          "at 1 click nan 5",
          "at 1 click 5 inf",
          "at 1 click 5 5 sideways",
          "at 1 drag 1 2 3",
          "at 1 scroll",
          "at 1 scroll inf",
          "at 1 scroll one",
          "at 1 resize 10 10",
          "at 1 resize 99999 100",
          "at 1 resize a b",
          "at 1 type",
          "at 1 screenshot",
          "at 1 screenshot x.jpg",
          "at 1 screenshot " + dir + "/missing/x.png",
          "at 1 screenshot " + dir};
}

struct BadCase {
  std::vector<std::string> args;
  std::string mentions;  // the message must contain this
  std::string content;   // the file's text, for scripts and scenes (shown on failure)
};

std::string describe(const BadCase& c) {
  std::string text;
  for (const std::string& a : c.args) text += "'" + a + "' ";
  if (!c.content.empty()) text += "(file: " + c.content + ") ";
  return text;
}

// Every pair of options that write files (and an output over an input),
// each pair naming one file in the spellings a user might mix: the same
// text, "./", relative against absolute, a directory reached through a
// symlink, a symlink to the file. Paths are made in `dir`.
std::vector<BadCase> sharedNameCases(const std::string& dir) {
  const fs::path base(dir);
  fs::create_directory_symlink(base, base / "alias");
  fs::create_symlink("same.png", base / "link.png");
  const std::string relative = fs::relative(base, fs::current_path()).string();
  const std::string script = writeFile(base / "shots.txt", "at 1 screenshot " + dir + "/same.png\n");
  const fs::path sceneDir = base / "shared-scene";
  fs::create_directory(sceneDir);
  const std::string scene = writeFile(sceneDir / "calm.json", calmScene());
  const std::vector<std::vector<std::string>> pairs{
      {"--screenshot", dir + "/same.png", "--dump-vertices", dir + "/same.png"},
      {"--screenshot", dir + "/same.png", "--dump-vertices", dir + "/./same.png"},
      {"--screenshot", dir + "/same.png", "--dump-vertices", relative + "/same.png"},
      {"--screenshot", dir + "/same.png", "--dump-vertices", dir + "/alias/same.png"},
      {"--screenshot", dir + "/same.png", "--dump-vertices", dir + "/link.png"},
      {"--capture", dir + "/same.csv", "--dump-vertices", dir + "/same.csv"},
      {"--capture", dir + "/same.csv", "--dump-vertices", dir + "/same.summary.json"},
      {"--capture", dir + "/same.csv", "--trace", dir + "/same.summary.json"},
      {"--capture", dir + "/same.csv", "--trace", relative + "/alias/same.summary.json"},
      {"--capture", dir + "/same.csv", "--capture-format", "mangohud", "--dump-vertices", dir + "/same_summary.csv"},
      {"--trace", dir + "/same.json", "--dump-vertices", dir + "/same.json"},
      {"--input-script", script, "--screenshot", dir + "/alias/same.png"},
      {"--input-script", script, "--dump-vertices", dir + "/same.png"},
      {"--input-script", script, "--dump-vertices", script},
      {"--scene", scene, "--trace", scene},
      {"--scene", scene, "--dump-vertices", sceneDir.string() + "/../shared-scene/calm.json"},
  };
  std::vector<BadCase> cases;
  for (const std::vector<std::string>& pair : pairs) cases.push_back({pair, "name the same file"});
  return cases;
}

std::vector<BadCase> generateBadCases(const std::string& dir) {
  std::vector<BadCase> cases;
  const auto add = [&](const OptionSpec& option, const std::string& value, const std::string& mentions,
                       const std::string& content = "") {
    std::vector<std::string> args;
    if (option.bench) args.push_back("bench");
    args.push_back(option.name);
    args.push_back(value);
    cases.push_back({args, mentions.empty() ? option.name : mentions, content});
  };
  int fileNumber = 0;
  for (const OptionSpec& option : optionTable()) {
    switch (option.kind) {
      case Kind::number: {
        std::vector<std::string> values{
            "-1", "99999999999999999999", "1.5", "abc", "", "0x10", "1e3", "+5", " 7", "7 ", "５"};
        if (option.low > 0) values.push_back(std::to_string(option.low - 1));
        values.push_back(option.high == std::numeric_limits<uint64_t>::max()
                             ? "18446744073709551616"
                             : std::to_string(option.high + 1));
        if (option.name == "--grids") values.insert(values.end(), {"64,1", "64;128", "64,abc", "64,-1"});
        for (const std::string& value : values) add(option, value, "");
        break;
      }
      case Kind::choice:
        for (const char* value : {"", "nope", "timeline2", "auto cuda"}) add(option, value, "");
        break;
      case Kind::size:
        for (const char* value : {"", "0x0", "15x16", "16x15", "8193x100", "100x8193", "100", "100x", "x100",
                                  "-16x16", "100x100x1", "abc", "100*100", "99999999999x100"})
          add(option, value, "");
        break;
      case Kind::device:
        for (const char* value : {"", "abc", "-1", "0x1", "1234567890", "1234-5678", "1.5",
                                  "gggggggggggggggggggggggggggggggg", "0123456789abcdef0123456789abcdef0"})
          add(option, value, "");
        break;
      case Kind::output:
        add(option, dir + "/missing/x" + option.extension, "");
        add(option, dir, "");
        add(option, "", "");
        add(option, dir + "/", "");
        if (!option.extension.empty()) {
          add(option, dir + "/x.wrong", "");
          add(option, dir + "/x", "");
        }
        break;
      case Kind::script:
        add(option, dir + "/missing.txt", "");
        add(option, dir, "");
        for (const std::string& text : badScripts(dir)) {
          const fs::path file = fs::path(dir) / ("script-" + std::to_string(++fileNumber) + ".txt");
          add(option, writeFile(file, text + "\n"), file.string(), text);
        }
        break;
      case Kind::fault:
        for (const char* value : {"", "nope", "sim-stalls@", "sim-stalls@x", "sim-stalls@-1",
                                  "sim-stalls@99999999999999999999", "@5"})
          add(option, value, "");
        break;
      case Kind::scene:
        add(option, "no-such-scene", "no-such-scene");
        add(option, dir + "/missing.json", "");
        add(option, "../calm", "");
        for (const std::string& text : badScenes()) {
          // Each in a directory of its own, so that the stem matches the name.
          const fs::path sub = fs::path(dir) / ("scene-" + std::to_string(++fileNumber));
          fs::create_directory(sub);
          add(option, writeFile(sub / "calm.json", text), (sub / "calm.json").string(), text);
        }
        break;
    }
  }
  // A capture whose CSV can be written and whose summary cannot: the summary
  // is checked before the run too, not found out after every frame.
  fs::create_directory(fs::path(dir) / "blocked.summary.json");
  cases.push_back({{"--capture", dir + "/blocked.csv"}, "blocked.summary.json"});
  for (BadCase& shared : sharedNameCases(dir)) cases.push_back(std::move(shared));
  // Options without a value, values without an option, unknown subcommands.
  cases.push_back({{"--frames"}, "--frames"});
  cases.push_back({{"--frames", "5", "--frames", "6"}, "--frames"});
  cases.push_back({{"--headless=maybe"}, "--headless"});
  cases.push_back({{"stray"}, "stray"});
  cases.push_back({{"bench", "--grids"}, "--grids"});
  cases.push_back({{"bench", "--screenshot", dir + "/x.png"}, "--screenshot"});
  // The run's outputs given before `bench` parse, but bench would not write them.
  cases.push_back({{"--screenshot", dir + "/x.png", "bench"}, "--screenshot"});
  cases.push_back({{"--dump-vertices", dir + "/x.bin", "bench"}, "--dump-vertices"});
  cases.push_back({{"--capture", dir + "/x.csv", "bench"}, "--capture"});
  cases.push_back({{"--trace", dir + "/x.json", "bench", "--json", dir + "/b.json"}, "--trace"});
  cases.push_back({{"--no-such-flag"}, "no-such-flag"});
  // Options that cannot take effect in the run asked for (their accepted
  // counterparts: OptionsThatCanTakeEffectAreAccepted).
  cases.push_back({{"--lod", "off", "--lod-pixels", "4", "--headless"}, "--lod-pixels"});
  cases.push_back({{"--lod-pixels", "4", "bench", "--lod", "off"}, "--lod-pixels"});
  cases.push_back({{"--warmup", "5"}, "--warmup"});
  cases.push_back({{"--headless", "--vsync", "off"}, "--vsync"});
  cases.push_back({{"--transfer", "copy", "--wait-strategy", "poll"}, "--wait-strategy"});
  cases.push_back({{"bench", "--transfer", "copy", "--wait-strategy", "poll"}, "--wait-strategy"});
  for (const std::vector<std::string>& replaced :
       {std::vector<std::string>{"--frames", "5"}, {"--grid", "64"}, {"--sync", "binary"}, {"--transfer", "copy"},
        {"--wait-strategy", "poll"}, {"--lod", "off"}, {"--warmup", "0"}, {"--switch-sync-every", "3"},
        {"--vsync", "off"}}) {
    std::vector<std::string> args = replaced;
    args.push_back("bench");
    cases.push_back({args, replaced.front()});
  }
  return cases;
}

std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) names.insert(entry.path().string());
  return names;
}

TEST(BadInput, EveryGeneratedBadValueExitsTwoWithOneLineAndCreatesNoFile) {
  const std::string dir =
      (fs::temp_directory_path() / ("vksim-bad-input-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<BadCase> cases = generateBadCases(dir);
  const std::set<std::string> before = listing(dir);
  ASSERT_GT(cases.size(), 300u) << "the generator lost most of its cases";
  for (const BadCase& c : cases) {
    const Result<Options> outcome = testing::parseArguments(c.args);
    if (outcome) {
      ADD_FAILURE() << describe(c) << "was accepted";
      continue;
    }
    EXPECT_EQ(outcome.error().exitCode, kExitUsage) << describe(c) << outcome.error().message;
    if (outcome.error().message.empty()) {
      ADD_FAILURE() << describe(c) << "gave no message";
      continue;
    }
    EXPECT_EQ(outcome.error().message.find('\n'), outcome.error().message.size() - 1)
        << describe(c) << "not one line: " << outcome.error().message;
    EXPECT_NE(outcome.error().message.find(c.mentions), std::string::npos)
        << describe(c) << "does not name " << c.mentions << ": " << outcome.error().message;
    EXPECT_EQ(outcome.error().message.rfind("vkcuda-sim: ", 0), 0u) << outcome.error().message;
  }
  EXPECT_EQ(listing(dir), before) << "parsing created or removed a file";
  fs::remove_all(dir);
}

// The three a new user meets first, with the message they get.
TEST(BadInput, HugeFramesAndNegativeSeedNameTheAllowedRange) {
  const Result<Options> frames = testing::parseArguments({"--frames", "99999999999999999999"});
  ASSERT_FALSE(frames);
  EXPECT_EQ(frames.error().exitCode, kExitUsage);
  EXPECT_NE(frames.error().message.find("from 0 to " + std::to_string(kMaxFrames)), std::string::npos)
      << frames.error().message;
  const Result<Options> seed = testing::parseArguments({"--seed", "-1"});
  ASSERT_FALSE(seed);
  EXPECT_EQ(seed.error().exitCode, kExitUsage);
  EXPECT_NE(seed.error().message.find("from 0 to 18446744073709551615"), std::string::npos)
      << seed.error().message;
}

// The limits themselves are accepted: the checks are not off by one.
TEST(BadInput, EveryRangeAcceptsItsBounds) {
  const std::string capture =
      (fs::temp_directory_path() / ("vksim-bounds-" + std::to_string(::getpid()) + ".csv")).string();
  for (const OptionSpec& option : optionTable()) {
    if (option.kind != Kind::number) continue;
    for (uint64_t value : {option.low, option.high}) {
      std::vector<std::string> args;
      if (option.bench) args.push_back("bench");
      args.insert(args.end(), {option.name, std::to_string(value)});
      // --warmup shapes a capture's statistics: refused without one.
      if (!option.bench && option.name == "--warmup") args.insert(args.end(), {"--capture", capture});
      const Result<Options> outcome = testing::parseArguments(args);
      EXPECT_TRUE(outcome.has_value()) << option.name << " " << value << ": " << outcome.error().message;
    }
  }
  EXPECT_TRUE(testing::parseArguments({"--device", "1089D517-ed87-650a-938e-8d6529f11366"}).has_value());
  EXPECT_TRUE(testing::parseArguments({"--device", "12345678901234567890123456789012"}).has_value());
}

// The shared-name check refuses only names of one file: distinct outputs, a
// capture and a trace beside it, and a script that writes one screenshot name
// twice (the later replaces the earlier, as asked) are accepted.
TEST(BadInput, DistinctOutputNamesAreAccepted) {
  const fs::path dir = fs::temp_directory_path() / ("vksim-distinct-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string d = dir.string();
  const std::string script = writeFile(dir / "shots.txt", "at 1 screenshot " + d + "/s.png\nat 2 screenshot " +
                                                              d + "/s.png\n");
  const Result<Options> outcome = testing::parseArguments(
      {"--screenshot", d + "/a.png", "--dump-vertices", d + "/a.bin", "--capture", d + "/a.csv", "--trace",
       d + "/a.json", "--input-script", script});
  EXPECT_TRUE(outcome.has_value()) << outcome.error().message;
  fs::remove_all(dir);
}

// The allowed counterpart of each kind of pair that sharedNameCases refuses:
// names that look alike but reach different files, and names reserved only
// for the layout that writes them (MangoHud's `_summary.csv` is written
// beside a --capture-format mangohud log only, never beside PresentMon's).
TEST(BadInput, TheCounterpartsOfTheRefusedSharedNamesAreAccepted) {
  const fs::path dir = fs::temp_directory_path() / ("vksim-counterparts-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "other");
  const std::string d = dir.string();
  const std::string script = writeFile(dir / "shots.txt", "at 1 screenshot " + d + "/same.png\n");
  fs::create_directory(dir / "scene");
  const std::string scene = writeFile(dir / "scene" / "calm.json", calmScene());
  const std::vector<std::vector<std::string>> allowed{
      {"--capture", d + "/run.csv", "--dump-vertices", d + "/run_summary.csv"},
      {"--capture", d + "/run.csv", "--capture-format", "presentmon", "--dump-vertices", d + "/run_summary.csv"},
      {"--capture", d + "/run.csv", "--capture-columns", "v2", "--trace", d + "/run_summary.json"},
      {"--capture", d + "/run.csv", "--capture-format", "mangohud", "--dump-vertices", d + "/run.summary.csv"},
      {"--capture", d + "/run.csv", "--capture-format", "mangohud", "--trace", d + "/other/run.summary.json"},
      {"--capture", d + "/run.csv", "--dump-vertices", d + "/other/run.csv"},
      {"--capture", d + "/run.csv", "--dump-vertices", d + "/run.summary.json.bin"},
      {"--screenshot", d + "/same.png", "--dump-vertices", d + "/same.png.bin"},
      {"--screenshot", d + "/same.png", "--dump-vertices", d + "/Same.png"},
      {"--trace", d + "/t.json", "--dump-vertices", d + "/t.summary.json"},
      {"--input-script", script, "--screenshot", d + "/other/same.png"},
      {"--scene", scene, "--dump-vertices", d + "/calm.json"},
  };
  for (const std::vector<std::string>& args : allowed) {
    const Result<Options> outcome = testing::parseArguments(args);
    std::string given;
    for (const std::string& a : args) given += a + " ";
    EXPECT_TRUE(outcome.has_value()) << given << "was refused: " << outcome.error().message;
  }
  fs::remove_all(dir);
}

// The other side of the refusals of options that cannot take effect: where
// they can, they are accepted. --lod-pixels with --lod off in a window or
// with a script (key L turns the level of detail on), or with a bench that
// has --lod on rows; --warmup with a capture; --vsync in a window;
// --wait-strategy with a zero-copy run or bench rows; run options that the
// bench uses as they are.
TEST(BadInput, OptionsThatCanTakeEffectAreAccepted) {
  const fs::path dir = fs::temp_directory_path() / ("vksim-effect-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = writeFile(dir / "lod.txt", "at 5 key L\n");
  const std::vector<std::vector<std::string>> accepted{
      {"--lod", "off", "--lod-pixels", "4"},
      {"--lod", "off", "--lod-pixels", "4", "--headless", "--input-script", script},
      {"--lod-pixels", "4", "bench", "--lod", "both"},
      {"--lod-pixels", "4", "--headless"},
      {"--warmup", "5", "--capture", (dir / "c.csv").string()},
      {"--vsync", "off"},
      {"--wait-strategy", "enqueue"},
      {"bench", "--transfer", "both", "--wait-strategy", "enqueue"},
      {"--headless", "--texture", "off", "--seed", "5", "--sim", "sinewave", "bench"},
  };
  for (const std::vector<std::string>& args : accepted) {
    const Result<Options> outcome = testing::parseArguments(args);
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    EXPECT_TRUE(outcome.has_value()) << shown << ": " << outcome.error().message;
  }
  fs::remove_all(dir);
}

// A value echoed in a refusal may hold control characters; they are shown
// as \xNN, so the message stays one line (a '\r' would let the terminal
// overwrite it). Found by fuzz_command_line's invariant on the input script's
// messages, which the command line passes on.
TEST(BadInput, ControlCharactersInAValueAreShownEscaped) {
  const Result<Options> frames = testing::parseArguments({"--frames", "1\r2"});
  ASSERT_FALSE(frames);
  EXPECT_EQ(frames.error().message.find('\r'), std::string::npos) << frames.error().message;
  EXPECT_NE(frames.error().message.find("1\\x0d2"), std::string::npos) << frames.error().message;
}

// Found by fuzz_command_line (tests/fuzz/corpus/command_line/regression-bench-mixed-case.txt):
// bench's dimensions take their names in any case, as --help's validator
// does; "timeLine" passed the validator and then ended the process with an
// uncaught std::out_of_range.
TEST(BadInput, BenchDimensionsTakeNamesInAnyCase) {
  const Result<Options> outcome = testing::parseArguments(
      {"bench", "--sync", "timeLine", "--transfer", "Zero-Copy", "--wait-strategy", "BOTH"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->bench->syncModes, std::vector<SyncMode>{SyncMode::timeline});
  EXPECT_EQ(outcome->bench->transfers, std::vector<TransferMode>{TransferMode::zeroCopy});
  EXPECT_EQ(outcome->bench->waitStrategies.size(), 2u);
}

// Every option that --help lists (main and bench) is in the table or a flag.
TEST(BadInput, OptionTableCoversTheHelp) {
  std::set<std::string> listed;
  for (const OptionSpec& option : optionTable()) listed.insert((option.bench ? "bench " : "") + option.name);
  for (const bool bench : {false, true}) {
    const Result<Options> help =
        bench ? testing::parseArguments({"bench", "--help"}) : testing::parseArguments({"--help"});
    ASSERT_FALSE(help);
    ASSERT_EQ(help.error().exitCode, kExitSuccess);
    const std::regex option("(--[a-z][a-z-]*)");
    for (auto it = std::sregex_iterator(help.error().message.begin(), help.error().message.end(), option);
         it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      if (kFlags.count(name)) continue;
      EXPECT_TRUE(listed.count((bench ? "bench " : "") + name))
          << (bench ? "bench " : "") << name << " takes a value and has no bad-input cases in optionTable()";
    }
  }
}

}  // namespace
}  // namespace vksim
