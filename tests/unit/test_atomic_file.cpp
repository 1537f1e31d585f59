// The writers of every output file (app/files.h): a
// successful write is complete, a failed one leaves no file and no temporary
// file, and an older file at the target survives a failed write unchanged.
// Failures are real ones: a missing directory, a directory in the way, and a
// write that fails half-way because the file-size limit (RLIMIT_FSIZE) is hit.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "app/files.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

// The message of a failed write; empty when it succeeded.
std::string errorOf(const Result<>& result) {
  return result ? std::string() : result.error().message;
}

class Writers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vksim-writers-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> names() const {
    std::set<std::string> result;
    for (const auto& entry : fs::directory_iterator(dir_)) result.insert(entry.path().filename().string());
    return result;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string readAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

RgbaImage gradient(uint32_t width, uint32_t height) {
  RgbaImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(size_t(width) * height * 4);
  // A hash per byte: PNG cannot compress it, so the file is about as large as
  // the pixels (the size-limit test relies on that).
  uint32_t state = 12345;
  for (uint8_t& byte : image.pixels) {
    state = state * 1664525u + 1013904223u;
    byte = uint8_t(state >> 24);
  }
  return image;
}

uint32_t bigEndian32(const std::string& bytes, size_t at) {
  return uint32_t(uint8_t(bytes[at])) << 24 | uint32_t(uint8_t(bytes[at + 1])) << 16 |
         uint32_t(uint8_t(bytes[at + 2])) << 8 | uint32_t(uint8_t(bytes[at + 3]));
}

// Lowers the file-size limit for the scope of a test; writes past it fail with
// EFBIG (SIGXFSZ, which would end the process, is ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previousHandler_);
  }

 private:
  rlimit saved_{};
  void (*previousHandler_)(int) = nullptr;
};

TEST_F(Writers, PngIsCompleteWithTheImagesSize) {
  ASSERT_EQ(errorOf(writePngFile(path("shot.png"), gradient(37, 21))), "");
  EXPECT_EQ(names(), std::set<std::string>{"shot.png"}) << "a temporary file was left";
  const std::string png = readAll(path("shot.png"));
  ASSERT_GT(png.size(), 8u + 25u + 12u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(bigEndian32(png, 16), 37u);
  EXPECT_EQ(bigEndian32(png, 20), 21u);
  // The last chunk is IEND with its fixed CRC: nothing was cut off.
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12));
}

TEST_F(Writers, BinaryIsCompleteAndReplacesAnOlderFile) {
  std::ofstream(path("v.bin")) << "older";
  std::vector<uint8_t> bytes(100'003);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 7);
  ASSERT_EQ(errorOf(writeFileAtomically(path("v.bin"), "vertex dump", bytes)), "");
  const std::string written = readAll(path("v.bin"));
  ASSERT_EQ(written.size(), bytes.size());
  EXPECT_EQ(std::memcmp(written.data(), bytes.data(), bytes.size()), 0);
  EXPECT_EQ(names(), std::set<std::string>{"v.bin"});
}

TEST_F(Writers, EmptyImageIsRefusedAndWritesNothing) {
  const std::string error = errorOf(writePngFile(path("shot.png"), RgbaImage{}));
  EXPECT_NE(error.find("no image"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "one line";
  EXPECT_TRUE(names().empty());
}

TEST_F(Writers, MissingDirectoryFailsWithOneLineAndWritesNothing) {
  const std::string png = errorOf(writePngFile(path("gone/shot.png"), gradient(4, 4)));
  const std::string bin =
      errorOf(writeFileAtomically(path("gone/v.bin"), "vertex dump", std::vector<uint8_t>(10)));
  for (const std::string& error : {png, bin}) {
    EXPECT_NE(error.find(path("gone")), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(Writers, DirectoryInTheWayFailsAndLeavesNoTemporaryFile) {
  fs::create_directory(path("shot.png"));
  EXPECT_NE(errorOf(writePngFile(path("shot.png"), gradient(4, 4))), "");
  EXPECT_EQ(names(), std::set<std::string>{"shot.png"});
  EXPECT_TRUE(fs::is_directory(path("shot.png")));
}

// The write itself fails part-way (EFBIG at the size limit): no target, no
// temporary file, and an older file at the target is unchanged.
TEST_F(Writers, WriteFailingHalfWayLeavesNoPartialFileAndKeepsTheOlderOne) {
  std::ofstream(path("v.bin")) << "older";
  std::ofstream(path("shot.png")) << "older png";
  std::string binError, pngError;
  {
    const FileSizeLimit limit(64 * 1024);
    binError = errorOf(writeFileAtomically(path("v.bin"), "vertex dump", std::vector<uint8_t>(1 << 20, 1)));
    pngError = errorOf(writePngFile(path("shot.png"), gradient(512, 512)));  // about 1 MiB, incompressible
    EXPECT_NE(errorOf(writePngFile(path("new.png"), gradient(512, 512))), "");
  }
  EXPECT_NE(binError, "");
  EXPECT_NE(pngError, "");
  EXPECT_EQ(binError.find('\n'), std::string::npos) << binError;
  EXPECT_EQ(readAll(path("v.bin")), "older");
  EXPECT_EQ(readAll(path("shot.png")), "older png");
  EXPECT_EQ(names(), (std::set<std::string>{"shot.png", "v.bin"})) << "partial or temporary file left";
}

// AtomicFile itself: nothing appears before commit, and an abandoned file
// (error path, exception) leaves nothing behind.
TEST_F(Writers, AtomicFileShowsNothingBeforeCommitAndNothingWhenAbandoned) {
  {
    AtomicFile file;
    ASSERT_TRUE(file.open(path("a.json"), "trace"));
    file.stream() << "{}";
    EXPECT_EQ(names(), std::set<std::string>{fs::path(file.temporaryPath()).filename().string()});
    ASSERT_TRUE(file.close());
    EXPECT_FALSE(fs::exists(path("a.json"))) << "visible before commit";
  }
  EXPECT_TRUE(names().empty()) << "destroying an uncommitted file must remove its temporary file";
  AtomicFile file;
  ASSERT_TRUE(file.open(path("b.json"), "trace"));
  file.stream() << "{\"complete\": true}\n";
  ASSERT_TRUE(file.commit());
  EXPECT_EQ(readAll(path("b.json")), "{\"complete\": true}\n");
  EXPECT_EQ(names(), std::set<std::string>{"b.json"});
}

TEST_F(Writers, WriteFileAtomicallyNamesTheFileInItsMessage) {
  const Result<> result = writeFileAtomically(path("gone/x.bin"), "vertex dump", std::vector<uint8_t>(3));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("vertex dump"), std::string::npos) << result.error().message;
  EXPECT_EQ(result.error().exitCode, kExitRuntime);
  EXPECT_TRUE(names().empty());
}

// Inputs: the whole of a small file; a file past the limit, a directory and a
// missing file are refused with one line that names the path.
TEST_F(Writers, BoundedReadReturnsTheFileAndRefusesWhatIsNotAnInput) {
  std::ofstream(path("small.txt")) << "at 1 key F1\n";
  const Result<std::string> small = readFileBounded(path("small.txt"), "input script", 64);
  ASSERT_TRUE(small) << small.error().message;
  EXPECT_EQ(*small, "at 1 key F1\n");

  std::ofstream(path("large.txt")) << std::string(65, 'x');
  const Result<std::string> large = readFileBounded(path("large.txt"), "input script", 64);
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error().message, path("large.txt") + ": larger than 64 bytes, not an input script");
  EXPECT_EQ(large.error().exitCode, kExitUsage);
  // Exactly at the limit is still an input.
  std::ofstream(path("exact.txt")) << std::string(64, 'x');
  EXPECT_TRUE(readFileBounded(path("exact.txt"), "input script", 64));

  fs::create_directory(path("dir.json"));
  const Result<std::string> directory = readFileBounded(path("dir.json"), "scene file", 1 << 20);
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().message, path("dir.json") + ": cannot read scene file: Is a directory");
  const Result<std::string> missing = readFileBounded(path("none.json"), "scene file", 1 << 20);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            path("none.json") + ": cannot read scene file: No such file or directory");
}

// The one writability check: a file that can be created passes and leaves
// nothing; a missing directory and a directory in the way fail with exit 2.
TEST_F(Writers, CheckWritableProbesAndLeavesNothing) {
  EXPECT_TRUE(checkWritable(path("later.png")));
  EXPECT_TRUE(names().empty()) << "the probe was left behind";
  const Result<> missing = checkWritable(path("gone/later.png"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "cannot write " + path("gone/later.png") + ": directory " + path("gone") + " does not exist");
  EXPECT_EQ(missing.error().exitCode, kExitUsage);
  fs::create_directory(path("taken"));
  EXPECT_FALSE(checkWritable(path("taken")));
}

}  // namespace
}  // namespace vksim
