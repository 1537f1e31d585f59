#include "app/capture/presentmon_v2.h"

namespace vksim {

void appendPresentMonV2Header(RowBuilder& row) {
  for (std::string_view column : kPresentMonV2Columns) row.word(column);
  for (std::string_view column : kAppColumns) row.word(column);
  row.end();
}

namespace {

// PresentMon's columns through MsPCLatency: the present and its display.
void appendPresentColumns(RowBuilder& row, const FrameRecord& frame, std::string_view application,
                          uint32_t processId) {
  row.text(application);
  row.unsignedInteger(processId);
  row.hexShort(frame.swapchainHandle);  // PresentMon 2.x prints the address unpadded
  row.word("Vulkan");
  row.signedInteger(frame.syncInterval);
  row.unsignedInteger(frame.presentFlags);
  if (frame.allowsTearing)
    row.unsignedInteger(*frame.allowsTearing ? 1 : 0);
  else
    row.notAvailable();
  // How the window system put the image on screen (PresentMon's flip and
  // composition modes) is not visible through Vulkan: PresentMon's word for
  // a mode it does not know.
  row.word("Other");
  row.word("Application");  // every frame is rendered by the program: no frame generation
  row.fixed(frame.timeInSeconds * 1000.0, 4);
  row.notAvailable();  // MsBetweenSimulationStart: needs PresentMon's app markers
  row.fixed(frame.msBetweenPresents, 4);
  row.fixed(frame.msBetweenDisplayChange, 4);
  row.fixed(frame.msInPresentApi, 4);
  row.fixed(frame.msUntilRenderComplete, 4);
  row.fixed(frame.msUntilDisplayed, 4);
  row.notAvailable();  // MsPCLatency: needs PC latency markers (NVIDIA Reflex)
}

// PresentMon's CPU, GPU and animation columns.
void appendWorkColumns(RowBuilder& row, const FrameRecord& frame, PresentMonV2State& state) {
  const double cpuStartMs = frame.cpuStartSeconds * 1000.0;
  row.fixed(cpuStartMs, 4);
  // PresentMon's sums: the next frame's CPU start is this frame's present
  // call's return, and the GPU's time is its busy and idle parts.
  row.fixed(frame.msCpuBusy + frame.msInPresentApi, 4);
  row.fixed(frame.msCpuBusy, 4);
  row.fixed(frame.msInPresentApi, 4);
  row.fixed(frame.msGpuLatency, 4);
  row.fixed(frame.msGpuTime, 4);
  row.fixed(frame.msGpuBusy, 4);
  if (frame.msGpuTime && frame.msGpuBusy)
    row.fixed(*frame.msGpuTime - *frame.msGpuBusy, 4);
  else
    row.notAvailable();
  row.notAvailable();  // MsVideoBusy: the program uses no video engine, and has no counter for one
  // PresentMon's sign: the step between two displayed frames' CPU starts
  // (its animation source when the program sends no markers) minus the step
  // between their display times, so a frame shown a refresh late is
  // negative. Display times exist only for consecutive FIFO frames.
  if (frame.msBetweenDisplayChange && state.previousCpuStartMs)
    row.fixed((cpuStartMs - *state.previousCpuStartMs) - *frame.msBetweenDisplayChange, 4);
  else
    row.notAvailable();
  if (!state.firstCpuStartMs) state.firstCpuStartMs = cpuStartMs;
  row.fixed(cpuStartMs - *state.firstCpuStartMs, 4);
  state.previousCpuStartMs = cpuStartMs;
  row.notAvailable();  // MsFlipDelay: NVIDIA's flip metering, not in Vulkan
  row.notAvailable();  // MsAllInputToPhotonLatency: needs input events and display times
  row.notAvailable();  // MsClickToPhotonLatency: likewise
  row.notAvailable();  // MsInstrumentedLatency: needs PresentMon's app markers
}

}  // namespace

void appendAppColumns(RowBuilder& row, const FrameRecord& frame) {
  row.unsignedInteger(frame.frame);
  row.text(frame.syncMode);
  row.text(frame.backend);
  row.text(frame.model);
  row.unsignedInteger(frame.grid);
  row.fixed(frame.msCpuFrame, 4);
  row.fixed(frame.msRenderGpu, 4);
  row.fixed(frame.msSimGpu, 4);
  row.fixed(frame.msSimWait, 4);
  if (frame.timelineValue)
    row.unsignedInteger(*frame.timelineValue);
  else
    row.notAvailable();
}

void appendPresentMonV2Row(RowBuilder& row, const FrameRecord& frame, std::string_view application,
                           uint32_t processId, PresentMonV2State& state) {
  appendPresentColumns(row, frame, application, processId);
  appendWorkColumns(row, frame, state);
  appendAppColumns(row, frame);
  row.end();
}

}  // namespace vksim
