// The schedule events' JSON (docs/captures.md, "Schedule events"): the shape
// a reader and the schedule tests rely on, worked out by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/capture/schedule_log.h"
#include "app/capture/schedule_recording.h"

namespace vksim {
namespace {

TEST(ScheduleLog, RenderEventArgsNameEverySemaphoreWithTimelineValuesOnly) {
  ScheduleEvent event;
  event.side = ScheduleSide::render;
  event.frame = 9;
  event.scheduleFrame = 7;
  event.mode = SyncMode::binary;
  event.waits = {{ScheduleSemaphore::timeline, 14, "VERTEX_INPUT"}, {ScheduleSemaphore::imageAvailable, 0, "COLOR_ATTACHMENT_OUTPUT"}};
  event.signals = {{ScheduleSemaphore::renderDone, 0}, {ScheduleSemaphore::renderFinished, 0}};
  event.sawTag = 7;
  const nlohmann::json args = nlohmann::json::parse(scheduleEventArgs(event));
  const nlohmann::json expected = nlohmann::json::parse(R"({
    "frame": 9, "schedule_frame": 7, "mode": "binary",
    "waits": [{"semaphore": "timeline", "value": 14, "stage": "VERTEX_INPUT"},
              {"semaphore": "imageAvailable", "stage": "COLOR_ATTACHMENT_OUTPUT"}],
    "signals": [{"semaphore": "renderDone"}, {"semaphore": "renderFinished"}],
    "saw_tag": 7})");
  EXPECT_EQ(args, expected) << args.dump();
  EXPECT_EQ(scheduleEventName(ScheduleSide::render), "render submit");
}

TEST(ScheduleLog, SimEventHasNoStageAndNoTag) {
  ScheduleEvent event;
  event.side = ScheduleSide::sim;
  event.waits = {{ScheduleSemaphore::renderDone, 0, ""}};
  event.signals = {{ScheduleSemaphore::simDone, 0}};
  const nlohmann::json args = nlohmann::json::parse(scheduleEventArgs(event));
  EXPECT_EQ(args.at("waits"), nlohmann::json::parse(R"([{"semaphore": "renderDone"}])"));
  EXPECT_EQ(args.at("signals"), nlohmann::json::parse(R"([{"semaphore": "simDone"}])"));
  EXPECT_FALSE(args.contains("saw_tag"));
  EXPECT_EQ(scheduleEventName(ScheduleSide::sim), "sim submit");
  EXPECT_EQ(scheduleEventName(ScheduleSide::initial), "initial submit");
  EXPECT_EQ(scheduleEventName(ScheduleSide::drain), "drain submit");
}

TEST(ScheduleLog, StageMasksAreNamedBitByBit) {
  EXPECT_EQ(stageMaskName(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT), "VERTEX_INPUT");
  EXPECT_EQ(stageMaskName(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT), "VERTEX_INPUT|TRANSFER");
  EXPECT_EQ(stageMaskName(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT), "ALL_COMMANDS");
  EXPECT_EQ(stageMaskName(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT),
            "VERTEX_INPUT|FRAGMENT_SHADER");
  EXPECT_EQ(stageMaskName(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT), "0x800");
}

}  // namespace
}  // namespace vksim
