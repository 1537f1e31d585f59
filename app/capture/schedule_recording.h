// The frame loop's calls that put each submission of the value schedule into
// app.scheduleLog (app/schedule_log.h), from the very arrays it hands to
// Vulkan and from what the simulation reports it enqueued. They record only
// while a trace is recording (app/capture_session.h writes and drops the
// events); otherwise they return at once.
#pragma once
#include <cstdint>
#include <span>

#include "app/capture/schedule_log.h"
#include "renderer/frame_sync.h"

namespace vksim {

struct App;

// Whether submissions are being recorded now: while a trace is open, and
// during frame 0 (so that a trace started before the first frame also has
// the initial write and frame 0).
bool scheduleRecording(const App& app);

// The initial state's write, before frame 0 of a new shared state:
// `signalledSimDone` says whether it ended in a simDone signal.
void recordInitialWrite(App& app, bool signalledSimDone);

// Render k's vkQueueSubmit, as submitted: every wait (semaphore, value,
// stage) and every signal. Semaphores are named by comparing the handles
// with app.shared.semaphores and app.frame / app.swapchain.
void recordRenderSubmission(App& app, uint64_t scheduleFrame, SyncMode mode,
                            std::span<const SemaphoreWait> waits, std::span<const SemaphoreSignal> signals);

// Sim k's turn as the simulation reported it: `waited` / `signalled` say
// whether its wait and its signal were enqueued (timeline: at sync's values;
// binary: renderDone / simDone).
void recordSimStep(App& app, uint64_t scheduleFrame, const StepSync& sync, bool waited, bool signalled);

// The drain's submission after the last frame (its waits, no signal).
void recordDrainSubmission(App& app, std::span<const SemaphoreWait> waits);

// "VERTEX_INPUT|TRANSFER": the stage bits the schedule uses, by name; any
// other bit as its hexadecimal value.
std::string stageMaskName(VkPipelineStageFlags stages);

}  // namespace vksim
