#include "sim/models.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/host_float_mode.h"

namespace vksim {

ModelParams clampModelParams(const ModelParams& params) {
  ModelParams clamped = params;
  // std::clamp would pass NaN through; !(x > 0) also catches it.
  if (!(clamped.courant > 0.0f)) clamped.courant = 0.0f;
  clamped.courant = std::min(clamped.courant, kMaxCourant);
  if (!(clamped.damping > 0.0f)) clamped.damping = 0.0f;
  if (!(clamped.dropRadius > kMinDropRadius)) clamped.dropRadius = kMinDropRadius;
  return clamped;
}

ModelParams changeParams(const ModelParams& current, const ModelParams& requested) {
  ModelParams next = clampModelParams(requested);
  next.model = current.model;
  next.grid = current.grid;
  return next;
}

uint64_t splitMix64(uint64_t value) {
  uint64_t z = value + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Drop automaticDrop(const ModelParams& params, uint64_t dropNumber) {
  // Mixing the seed first keeps nearby seeds from giving shifted copies of the
  // same sequence. Two 24-bit fields of one output: each is exact in a float,
  // and so is its scaling by 2^-24, so the position does not depend on how a
  // compiler rounds.
  const uint64_t bits = splitMix64(splitMix64(params.seed) + dropNumber);
  const float unitX = static_cast<float>(bits >> 40) * 0x1p-24f;
  const float unitZ = static_cast<float>((bits >> 16) & 0xFFFFFFull) * 0x1p-24f;
  Drop drop;
  drop.x = kDropExtent * (2.0f * unitX - 1.0f);
  drop.z = kDropExtent * (2.0f * unitZ - 1.0f);
  drop.radius = params.dropRadius;
  drop.amplitude = params.dropAmplitude;
  return drop;
}

Drop initialDrop(const ModelParams& params) {
  Drop drop;
  drop.radius = params.dropRadius;
  drop.amplitude = params.dropAmplitude;
  return drop;
}

std::vector<Drop> stepDrops(const ModelParams& params, uint64_t stepNumber, const std::vector<Drop>& queued) {
  std::vector<Drop> drops;
  drops.reserve(queued.size() + 1);
  if (params.dropInterval > 0 && stepNumber % params.dropInterval == 0)
    drops.push_back(automaticDrop(params, stepNumber / params.dropInterval));
  drops.insert(drops.end(), queued.begin(), queued.end());
  return drops;
}

namespace {

// The indices [first, end) of the interior cells whose coordinate lies within
// [low, high]: gridCoordinate(i) = (2i - (n - 1)) / (n - 1), solved for i in
// double. A cell on the boundary may fall either way; every backend takes the
// host's answer.
void axisCells(double low, double high, uint32_t grid, uint32_t& first, uint32_t& end) {
  first = end = 1;
  if (!(std::isfinite(low) && std::isfinite(high))) return;  // a drop nowhere changes nothing
  const double half = 0.5 * double(grid - 1);
  const double from = std::ceil((low + 1.0) * half), to = std::floor((high + 1.0) * half);
  first = uint32_t(std::clamp(from, 1.0, double(grid - 1)));
  end = uint32_t(std::clamp(to + 1.0, double(first), double(grid - 1)));
}

}  // namespace

CellRect cellsWithin(float x, float z, float reach, uint32_t grid) {
  CellRect rect{};
  if (grid < 3) return rect;  // no interior cell
  axisCells(double(x) - reach, double(x) + reach, grid, rect.firstI, rect.endI);
  axisCells(double(z) - reach, double(z) + reach, grid, rect.firstJ, rect.endJ);
  return rect;
}

DropShape makeDropShape(const Drop& drop, uint32_t grid) {
  const float radius = drop.radius > kMinDropRadius ? drop.radius : kMinDropRadius;
  return {drop.x, drop.z, drop.amplitude, 1.0f / (2.0f * radius * radius),
          cellsWithin(drop.x, drop.z, kDropReachSigmas * radius, grid)};
}

CellRect footprintUnion(const DropShape* shapes, size_t count) {
  CellRect all{};
  bool any = false;
  for (size_t d = 0; d < count; ++d) {
    const CellRect& r = shapes[d].cells;
    if (isEmpty(r)) continue;
    all = any ? CellRect{std::min(all.firstI, r.firstI), std::max(all.endI, r.endI), std::min(all.firstJ, r.firstJ),
                         std::max(all.endJ, r.endJ)}
              : r;
    any = true;
  }
  return all;
}

RippleCoefficients rippleCoefficients(const ModelParams& params) {
  const ModelParams clamped = clampModelParams(params);
  const float halfDampingStep = 0.5f * clamped.damping * clamped.timeStep;
  return {clamped.courant * clamped.courant, 1.0f - halfDampingStep, 1.0f / (1.0f + halfDampingStep)};
}

SinewaveFrame sinewaveFrame(const ModelParams& params, uint64_t step) {
  // The product in double, rounded once: t = step * timeStep without the
  // drift that adding timeStep step by step would accumulate.
  const float time = static_cast<float>(static_cast<double>(step) * static_cast<double>(params.timeStep));
  return {params.amplitude, params.waveNumberX, params.waveNumberZ, time, params.grid};
}

SinewaveRows::SinewaveRows(const ModelParams& params, uint64_t step)
    : frame_(sinewaveFrame(params, step)), factorX_(params.grid), factorZ_(params.grid) {
  // The factors per column and per row: 2n sin/cos instead of 6 per vertex,
  // the same values as the kernel's (the same function of the same argument).
  for (uint32_t i = 0; i < params.grid; ++i) factorX_[i] = sinewaveFactorX(frame_, i);
  for (uint32_t j = 0; j < params.grid; ++j) factorZ_[j] = sinewaveFactorZ(frame_, j);
}

void SinewaveRows::write(uint32_t j, Vertex* row) const {
  const uint32_t n = uint32_t(factorX_.size());
  const NeighbourPair alongZ = slopeNeighbours(j, n);
  const AxisFactors z{factorZ_[alongZ.lower], factorZ_[j], factorZ_[alongZ.upper]};
  for (uint32_t i = 0; i < n; ++i) {
    const NeighbourPair alongX = slopeNeighbours(i, n);
    const AxisFactors x{factorX_[alongX.lower], factorX_[i], factorX_[alongX.upper]};
    row[i] = sinewaveVertex(frame_, i, j, x, z);
  }
}

void writeSinewaveVertices(const ModelParams& params, uint64_t step, Vertex* vertices) {
  const SinewaveRows rows(params, step);
  for (uint32_t j = 0; j < params.grid; ++j) rows.write(j, vertices + size_t(j) * params.grid);
}

RippleModel::RippleModel(const ModelParams& params) : params_(clampModelParams(params)) {
  reset();
}

void RippleModel::reset() {
  const FlushSubnormalsScope flush;
  const size_t cells = static_cast<size_t>(params_.grid) * params_.grid;
  previous_.assign(cells, 0.0f);
  current_.assign(cells, 0.0f);
  queued_.clear();
  stepCount_ = 0;
  prepared_.rowsDone = 0;
  applyDrop(initialDrop(params_));
  prepareNextDrop();
}

void RippleModel::setParams(const ModelParams& params) {
  params_ = changeParams(params_, params);
}

namespace {

bool sameDrop(const Drop& a, const Drop& b) {
  return a.x == b.x && a.z == b.z && a.radius == b.radius && a.amplitude == b.amplitude;
}

// The drop's value at every interior cell of rows [firstRow, endRow).
void writeDropRows(const Drop& drop, uint32_t grid, uint32_t firstRow, uint32_t endRow, float* heights) {
  const DropShape shape = makeDropShape(drop, grid);
  const CellRect& cells = shape.cells;
  for (uint32_t j = std::max(firstRow, cells.firstJ); j < std::min(endRow, cells.endJ); ++j) {
    const float z = gridCoordinate(j, grid);
    for (uint32_t i = cells.firstI; i < cells.endI; ++i)
      heights[j * grid + i] = dropHeight(shape, gridCoordinate(i, grid), z);
  }
}

}  // namespace

void RippleModel::applyDrop(const Drop& drop) {
  const uint32_t n = params_.grid;
  // A prepared drop holds exactly what dropHeight gives here: any drop equal
  // to it, automatic or queued, may take its values.
  const bool prepared = prepared_.rowsDone == n && sameDrop(prepared_.drop, drop);
  const DropShape shape = makeDropShape(drop, n);
  const CellRect& cells = shape.cells;
  for (uint32_t j = cells.firstJ; j < cells.endJ; ++j) {
    const float z = gridCoordinate(j, n);
    for (uint32_t i = cells.firstI; i < cells.endI; ++i) {
      const float height = prepared ? prepared_.heights[j * n + i] : dropHeight(shape, gridCoordinate(i, n), z);
      current_[j * n + i] += height;
      previous_[j * n + i] += height;
    }
  }
}

void RippleModel::prepareNextDrop() {
  const uint32_t interval = params_.dropInterval;
  if (interval == 0) return;
  const uint32_t n = params_.grid;
  // The next step that applies an automatic drop, and the preparations left
  // before it: this one and one at the end of each step in between.
  const uint64_t dropStep = (stepCount_ / interval + 1) * interval;
  const uint64_t callsLeft = dropStep - stepCount_;
  const Drop next = automaticDrop(params_, dropStep / interval);
  // Allocated once: the edges stay 0 and every drop rewrites the interior.
  if (prepared_.heights.size() != size_t(n) * n) {
    prepared_.heights.assign(size_t(n) * n, 0.0f);
    prepared_.rowsDone = 0;
  }
  if (!sameDrop(prepared_.drop, next)) {
    prepared_.drop = next;
    prepared_.rowsDone = 0;
  }
  const uint32_t rows = uint32_t((n - prepared_.rowsDone + callsLeft - 1) / callsLeft);
  writeDropRows(next, n, prepared_.rowsDone, prepared_.rowsDone + rows, prepared_.heights.data());
  prepared_.rowsDone += rows;
}

void RippleModel::step() {
  const FlushSubnormalsScope flush;
  for (const Drop& drop : stepDrops(params_, stepCount_ + 1, queued_)) applyDrop(drop);
  queued_.clear();
  const RippleCoefficients coefficients = rippleCoefficients(params_);
  const uint32_t n = params_.grid;
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      float& cell = previous_[j * n + i];
      cell = rippleNextHeight(current_.data(), cell, n, i, j, coefficients);
    }
  std::swap(previous_, current_);
  ++stepCount_;
  prepareNextDrop();
}

void RippleModel::writeVertices(Vertex* vertices) const {
  for (uint32_t j = 0; j < params_.grid; ++j) writeVertexRow(j, vertices + size_t(j) * params_.grid);
}

void RippleModel::writeVertexRow(uint32_t j, Vertex* row) const {
  const FlushSubnormalsScope flush;
  const uint32_t n = params_.grid;
  for (uint32_t i = 0; i < n; ++i) row[i] = heightFieldVertex(current_.data(), n, i, j);
}

}  // namespace vksim
