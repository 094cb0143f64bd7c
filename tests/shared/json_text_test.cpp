#include "fastslow/io/json_text.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace fastslow {
namespace {

TEST(JsonText, ParsesAndNamesTheFileOnBadText) {
  EXPECT_EQ(parse_json_text(R"({"a": [1, 2]})", "x.json", "bad").at("a").at(1), 2);
  const std::string msg = test::error_of([] { parse_json_text("{\"a\": ", "dir/model.json", "not a JSON model card"); });
  EXPECT_EQ(msg.rfind("dir/model.json", 0), 0u) << msg;
  EXPECT_NE(msg.find("not a JSON model card: "), std::string::npos) << msg;
  EXPECT_NE(test::error_of([] { parse_json_text("", "e.json", "empty"); }).find("e.json"), std::string::npos);
}

}  // namespace
}  // namespace fastslow
