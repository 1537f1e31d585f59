#include "image_file.h"

#include <stb_image.h>

namespace vksim::testing {

Image loadImage(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
  if (pixels) {
    image.rgba.assign(pixels, pixels + size_t(image.width) * size_t(image.height) * 4);
    stbi_image_free(pixels);
  }
  return image;
}

}  // namespace vksim::testing
