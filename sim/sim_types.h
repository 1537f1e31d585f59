// Plain data shared by every simulation backend and by app/. No Vulkan or CUDA
// types: sim/'s public headers are readable by a program that knows neither.
#pragma once
#include <cstdint>
#include <string>

#include "sim/fault_plan.h"

namespace vksim {

enum class ModelKind { sinewave, ripple };
enum class SyncMode { timeline, binary };

// An enumerator and its one spelling. The names are the command-line values,
// the scene files' "model" field and the report fields (summary line, CSV,
// JSON), so they stay lower-case single words and never change with the
// enumerators.
template <class T>
struct NamedValue {
  T value;
  const char* name;
};
inline constexpr NamedValue<ModelKind> kModelNames[] = {{ModelKind::ripple, "ripple"},
                                                        {ModelKind::sinewave, "sinewave"}};
inline constexpr NamedValue<SyncMode> kSyncModeNames[] = {{SyncMode::timeline, "timeline"},
                                                          {SyncMode::binary, "binary"}};

// The name from the tables above ("unknown" for a value outside them).
const char* toString(ModelKind model);
const char* toString(SyncMode mode);

// Grid limits in vertices per side (the command line enforces them).
inline constexpr uint32_t kMinGrid = 2;
inline constexpr uint32_t kMaxGrid = 8192;

// The largest stable Courant number c*dt/h of the 2D leapfrog scheme.
inline constexpr float kMaxCourant = 0.70710678f;

// Everything that decides what the simulation computes. Time advances by
// timeStep per simulation step, never by the wall clock, so a run is
// reproducible from these values alone. The grid spans [-1, 1] in x and z.
struct ModelParams {
  ModelKind model = ModelKind::ripple;
  uint32_t grid = 512;             // vertices per side
  float timeStep = 1.0f / 60.0f;   // simulated seconds per step
  // sinewave: height = amplitude * sin(waveNumberX * x + t) * cos(waveNumberZ * z + t)
  float amplitude = 0.1f;
  float waveNumberX = 6.0f;        // radians per world unit
  float waveNumberZ = 4.0f;
  // ripple: damped wave equation u_tt = c^2 (u_xx + u_zz) - damping * u_t,
  // leapfrog, fixed (zero) edges. The wave speed follows from the Courant
  // number: c = courant * h / timeStep, with h the grid spacing.
  float courant = 0.5f;            // c*dt/h, at most kMaxCourant
  float damping = 0.3f;            // 1/s
  uint32_t dropInterval = 24;      // steps between automatic drops; 0 = none
  float dropRadius = 0.05f;        // Gaussian sigma, world units
  float dropAmplitude = 0.06f;     // world units
  uint64_t seed = 1;               // drop positions
};

// A Gaussian bump added to the ripple height field (and to its previous
// state, so it starts at rest).
struct Drop {
  float x = 0.0f, z = 0.0f;  // world units in [-1, 1]
  float radius = 0.05f;      // sigma, world units
  float amplitude = 0.05f;   // peak height, world units
};

// How one frame's simulation step takes part in the value schedule
// (docs/value-schedule.md). Timeline values are ignored in binary mode.
struct StepSync {
  SyncMode mode = SyncMode::timeline;
  uint64_t waitValue = 0;    // timeline: wait until the counter >= this (2k+1)
  uint64_t signalValue = 0;  // timeline: signal this value when done (2k+2)
  // Test facility (--inject-fault, sim/fault_plan.h): what this step is asked
  // to do wrong. none in every normal run.
  StepFault fault = StepFault::none;
};

enum class StepStatus { ok, timeout, failed };

// What one simulation turn (a step, or the initial write) did, as recorded at
// the moment each part was enqueued: the frame loop's bookkeeping of
// outstanding signals (app/interop/value_schedule.h) trusts these, never the status
// alone, because a failed turn may have enqueued its wait but not its signal.
struct StepResult {
  StepStatus status = StepStatus::ok;
  // The wait on the render's signal was handed over (CUDA: enqueued on the
  // stream; CPU, binary: the host's waiting submission was made). A binary
  // renderDone signal is consumed from then on, even if the wait never ends.
  bool waitEnqueued = false;
  // The signal for the next render (timeline value, or simDone) was handed
  // over: it will execute once everything before it has. Only then may a
  // Vulkan wait on it be submitted.
  bool signalEnqueued = false;
};

// Where one simulation step ran, on the host's clock: nanoseconds of
// std::chrono::steady_clock since its epoch (the CUDA backend converts its
// events through an anchor event recorded at a known host time).
struct StepTiming {
  uint64_t sequence = 0;                   // 0 for the first step() after writeInitialState, then 1, 2, ...
  int64_t waitBeginNs = 0, waitEndNs = 0;  // the step's wait on the other side (equal when it had none)
  int64_t workBeginNs = 0,
          workEndNs = 0;  // the model step and the vertex write (copy path: and the copy to host)
};

}  // namespace vksim
