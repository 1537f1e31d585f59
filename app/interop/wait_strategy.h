// How the frame loop hands a semaphore wait to the side that waits
// (docs/benchmarks.md, "Wait strategies"):
//
//   poll (the default): the host first spins until the value is reached
//            (counter, fence or CUDA event, each read without blocking),
//            then submits the wait, already satisfied.
//   enqueue: submit each wait at once, while its value may still be
//            unreached; the queue or stream holds it and the host sleeps
//            in vkWaitForFences at the top of the next frame.
//
// Either way the wait is submitted and carries the dependency; the strategy
// only decides when the host hands it over, so the value schedule is the
// same, and so is what a frame pays for the handoff: the GPU switching
// between the Vulkan device's context and the CUDA context twice a frame.
// poll is the default because its frames are steadier: enqueue's host
// sleeps in vkWaitForFences, whose wake-up lands in the frame's tail;
// enqueue stays for a run that must leave every CPU core free. The host
// never blocks in vkWaitSemaphores on a value CUDA signals: that wait wakes
// milliseconds late. The measurements behind each of these are in
// docs/benchmarks.md ("Wait strategies", "Which strategy").
#pragma once

namespace vksim {

enum class WaitStrategy { poll, enqueue };
const char* toString(WaitStrategy strategy);  // "poll", "enqueue"

}  // namespace vksim
