// A locale whose numbers differ from the C locale's in every way a number can
// (decimal comma, '.' between thousands), made at test time: the machines
// this runs on ship no compiled locale but C and POSIX. localedef compiles
// de_DE from the locales package's sources into a directory that LOCPATH
// names; glibc looks a locale up there first.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace vksim::testing {

// Compiles de_DE.UTF-8 into `directory`/de_DE.utf8 (glibc's normalized name)
// unless it is there. Returns "" or what went wrong, in one line.
inline std::string makeGermanLocale(const std::string& directory) {
  const std::filesystem::path target = std::filesystem::path(directory) / "de_DE.utf8";
  if (std::filesystem::exists(target / "LC_NUMERIC")) return "";
  std::filesystem::create_directories(directory);
  const std::string command = "localedef -i de_DE -f UTF-8 '" + target.string() + "' >/dev/null 2>&1";
  // localedef exits non-zero for warnings too: the compiled files decide.
  (void)std::system(command.c_str());
  if (!std::filesystem::exists(target / "LC_NUMERIC"))
    return "localedef could not compile de_DE.UTF-8 into " + target.string() +
           " (scripts/setup installs the locales package that it compiles from)";
  return "";
}

}  // namespace vksim::testing
