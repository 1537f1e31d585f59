// A PNG the app wrote (a screenshot), decoded for the integration tests that
// compare pictures pixel by pixel.
#pragma once
#include <string>
#include <vector>

namespace vksim::testing {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;  // width * height pixels, 4 bytes each, rows top to bottom
};

// The image at `path` as RGBA; all empty (0 x 0, no pixels) when the file is
// missing or not an image, so that a size assertion reports it.
Image loadImage(const std::string& path);

}  // namespace vksim::testing
