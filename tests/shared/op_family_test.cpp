#include "fastslow/view/op_family.h"

#include <gtest/gtest.h>

#include <set>

#include "fastslow/graph/hlo_tables.h"

namespace fastslow {
namespace {

TEST(OpFamily, KnownOpcodesLandInTheirFamily) {
  EXPECT_EQ(op_family(require_opcode("convolution")), OpFamily::Compute);
  EXPECT_EQ(op_family(require_opcode("dot")), OpFamily::Compute);
  EXPECT_EQ(op_family(require_opcode("add")), OpFamily::Elementwise);
  EXPECT_EQ(op_family(require_opcode("exponential")), OpFamily::Elementwise);
  EXPECT_EQ(op_family(require_opcode("reduce")), OpFamily::Reduction);
  EXPECT_EQ(op_family(require_opcode("transpose")), OpFamily::Movement);
  EXPECT_EQ(op_family(require_opcode("parameter")), OpFamily::Parameter);
  EXPECT_EQ(op_family(require_opcode("tuple")), OpFamily::Control);
  EXPECT_EQ(op_family(require_opcode("all-reduce")), OpFamily::Communication);
  EXPECT_EQ(op_family(0), OpFamily::Other);
  EXPECT_EQ(op_family(9999), OpFamily::Other);
}

TEST(OpFamily, EveryOpcodeHasANamedFamilyAndColoursDiffer) {
  std::set<int> families;
  for (int id = 1; id <= opcode_count(); ++id) {
    const OpFamily f = op_family(id);
    EXPECT_NE(f, OpFamily::Other) << opcode_name(id);
    families.insert(static_cast<int>(f));
  }
  EXPECT_EQ(families.size(), static_cast<size_t>(kOpFamilies - 1));
  std::set<uint32_t> colours;
  for (int f = 0; f < kOpFamilies; ++f) colours.insert(op_family_color(static_cast<OpFamily>(f)));
  EXPECT_EQ(colours.size(), static_cast<size_t>(kOpFamilies));
}

}  // namespace
}  // namespace fastslow
