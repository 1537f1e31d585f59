// The surface texture's host side: the mip chain's layout, the colour of a
// vertex at known points, and the box filter's rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "sim/model_math.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

TEST(SurfaceTextureLayout, LevelsExtentsAndOffsets) {
  EXPECT_EQ(surfaceTextureLevelCount(512), 10u);  // 512 .. 1
  EXPECT_EQ(surfaceTextureLevelCount(37), 6u);    // 37 18 9 4 2 1
  EXPECT_EQ(surfaceTextureLevelCount(2), 2u);
  const SurfaceTextureLevel level2 = surfaceTextureLevel(37, 2);
  EXPECT_EQ(level2.width, 9u);
  EXPECT_EQ(level2.height, 9u);
  EXPECT_EQ(level2.offset, (37u * 37u + 18u * 18u) * 4u);
  EXPECT_EQ(surfaceTextureBytes(37), (37u * 37u + 18u * 18u + 81u + 16u + 4u + 1u) * 4u);
}

TEST(SurfaceTexel, FlatAndSteepVertices) {
  // Flat and at rest: depth 0.5, no foam: (0.05 + 0.15, 0.22 + 0.265, 0.45 + 0.25) * 255, rounded.
  const Texel flat = surfaceTexel({{0, 0, 0, 1}, {0, 1, 0, 0}});
  EXPECT_EQ(flat.r, 51);   // 0.20 * 255 = 51.0
  EXPECT_EQ(flat.g, 124);  // 0.485 * 255 = 123.675
  EXPECT_EQ(flat.b, 179);  // 0.70 * 255 = 178.5 -> 179 (float 0.7 * 255 rounds up)
  EXPECT_EQ(flat.a, 255);
  // Steep (1 - n.y >= 1/25): white foam whatever the height.
  const Texel foam = surfaceTexel({{0, -0.2f, 0, 1}, {0.5f, 0.9f, 0, 0}});
  EXPECT_EQ(foam.r, 255);
  EXPECT_EQ(foam.g, 255);
  EXPECT_EQ(foam.b, 255);
  // High: depth clamps to 1.
  const Texel high = surfaceTexel({{0, 1.0f, 0, 1}, {0, 1, 0, 0}});
  EXPECT_EQ(high.r, 89);  // 0.35 * 255 = 89.25
}

// The host's clampToUnit is fminf(fmaxf(v, 0), 1) with comparisons (what the
// kernels still call): the same bytes for every input class, NaN, infinities,
// signed zeros and subnormals included, and for one float in 4093 of the
// whole range. Signaling NaNs are left out: glibc's fmaxf turns one into a
// quiet NaN (so the pair clamps it to 1), but every value clamped here is the
// result of arithmetic, which never gives a signaling NaN.
TEST(SurfaceTexel, HostClampGivesTheLibmBytes) {
  const auto reference = [](float value) {
    return static_cast<uint8_t>(fminf(fmaxf(value, 0.0f), 1.0f) * 255.0f + 0.5f);
  };
  std::vector<float> values{std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            0.0f, -0.0f, 1.0f, 1.0f + 0x1p-23f, 1.0f - 0x1p-24f, 0x1p-149f, -0x1p-149f};
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4093) {
    const uint32_t pattern = uint32_t(bits);
    float value;
    std::memcpy(&value, &pattern, sizeof value);
    const bool signalingNan = std::isnan(value) && (pattern & 0x00400000u) == 0;
    if (!signalingNan) values.push_back(value);
  }
  size_t mismatches = 0;
  for (float value : values) {
    mismatches += unitToByte(value) != reference(value) ? 1 : 0;
    // As surfaceTexel uses it: a clamped value scaled into a colour.
    const float clamped = clampToUnit(value), libm = fminf(fmaxf(value, 0.0f), 1.0f);
    mismatches += (0.05f + 0.30f * clamped) != (0.05f + 0.30f * libm) ? 1 : 0;
  }
  EXPECT_EQ(mismatches, 0u) << "of " << values.size() << " values";
}

TEST(SurfaceTexel, BoxFilterRoundsToNearest) {
  EXPECT_EQ(meanOfFour(0, 0, 1, 1), 1);  // 0.5 rounds up
  EXPECT_EQ(meanOfFour(0, 0, 0, 1), 0);  // 0.25 rounds down
  EXPECT_EQ(meanOfFour(255, 255, 255, 255), 255);
  const Texel mean = downsampleTexel({0, 10, 255, 255}, {4, 10, 255, 255}, {0, 10, 0, 255}, {0, 11, 0, 255});
  EXPECT_EQ(mean.r, 1);
  EXPECT_EQ(mean.g, 10);
  EXPECT_EQ(mean.b, 128);  // 127.5
}

// writeSurfaceTexture: a single odd vertex in a flat grid shows up in level 0
// and is averaged into level 1 and below.
TEST(SurfaceTexture, WritesEveryLevel) {
  constexpr uint32_t kGrid = 5;
  std::vector<Vertex> vertices(kGrid * kGrid, Vertex{{0, 0, 0, 1}, {0, 1, 0, 0}});
  vertices[0].normal = {0.6f, 0.8f, 0, 0};  // foam at texel (0, 0)
  std::vector<uint8_t> texels(surfaceTextureBytes(kGrid));
  writeSurfaceTexture(vertices.data(), kGrid, texels.data());
  EXPECT_EQ(texels[0], 255);
  EXPECT_EQ(texels[4], 51);  // texel (1, 0) is flat
  const SurfaceTextureLevel level1 = surfaceTextureLevel(kGrid, 1);
  EXPECT_EQ(texels[level1.offset], uint8_t((255 + 51 * 3 + 2) / 4));
  const SurfaceTextureLevel level2 = surfaceTextureLevel(kGrid, 2);  // 1x1: mean of level 1's 2x2
  const uint32_t corner = (255 + 51 * 3 + 2) / 4;
  EXPECT_EQ(texels[level2.offset], uint8_t((corner + 51 * 3 + 2) / 4));
}

}  // namespace
}  // namespace vksim
