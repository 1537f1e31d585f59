// The command line's checks of single values (CLI11 validators) and the
// output-path check that runs before any frame. Split from app/cli.cpp,
// which builds the options from these.
#pragma once
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim/sim_types.h"

namespace vksim {

// Each enumerator's command-line name is its toString (the same word the
// summary line and captures print), so the choices are built from there and
// never spelt twice.
template <typename T>
std::map<std::string, T> choicesOf(std::initializer_list<T> values) {
  std::map<std::string, T> choices;
  for (T value : values) choices.emplace(toString(value), value);
  return choices;
}

template <typename T, size_t N>
std::map<std::string, T> choicesOf(const NamedValue<T> (&table)[N]) {
  std::map<std::string, T> choices;
  for (const NamedValue<T>& entry : table) choices.emplace(entry.name, entry.value);
  return choices;
}

// One of a fixed set of names (case-insensitive), mapped to its value. The
// help shows the names, and a bad value is one plain sentence, unlike
// CLI::CheckedTransformer's "value in {binary->1,timeline->0} OR {1,0}".
template <typename T>
CLI::Validator oneOf(const std::map<std::string, T>& choices) {
  std::string names;
  for (const auto& [name, value] : choices) names += (names.empty() ? "" : "|") + name;
  return CLI::Validator(
      [choices, names](std::string& text) -> std::string {
        std::string lower = text;
        for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
        const auto found = choices.find(lower);
        if (found == choices.end()) return "'" + text + "' is not one of " + names;
        text = std::to_string(static_cast<long long>(found->second));  // CLI11 reads enums as integers
        return {};
      },
      names);
}

// A whole number from `low` to `high`, in plain decimal digits (the text is
// checked before CLI11 converts it).
CLI::Validator wholeNumber(uint64_t low, uint64_t high);

// --device: an index into the Vulkan list, or a device UUID of 32 hex digits.
CLI::Validator deviceSelector();

// A path the run will write: the extension, a file name, and checkWritable.
Result<> checkOutputPath(const std::string& path, const std::string& requiredExtension);

// `withSummary`: a capture, whose summary beside the CSV must be writable too.
CLI::Validator outputFile(const std::string& extension, bool withSummary = false);

// --size: WIDTHxHEIGHT, each side 16 to 8192.
CLI::Validator sizeValidator();

// "both" (every value, in the order `values` holds by default) or one value of
// `choices`, as the list of values that a bench dimension runs.
template <typename T>
CLI::Option* addDimension(CLI::App& command, const std::string& name, std::vector<T>& values,
                          const std::map<std::string, T>& choices, const std::string& description) {
  std::vector<std::string> names{"both"};
  for (const auto& [choice, value] : choices) names.push_back(choice);
  return command
      .add_option_function<std::string>(
          name,
          [&values, choices, all = values](std::string given) {
            // IsMember below compares without case but passes the text on as
            // typed: "timeLine" reached choices.at() and ended the process
            // (std::out_of_range; found by fuzz_command_line).
            for (char& c : given) c = char(std::tolower(static_cast<unsigned char>(c)));
            values = given == "both" ? all : std::vector<T>{choices.at(given)};
          },
          description)
      ->check(CLI::IsMember(names, CLI::ignore_case));
}

}  // namespace vksim
