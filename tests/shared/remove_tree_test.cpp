// Removing a folder tree without std::filesystem's walk (io/remove_tree.h).
#include "fastslow/io/remove_tree.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace fastslow {
namespace {

namespace fs = std::filesystem;

TEST(RemoveTree, RemovesNestedFoldersAndFilesButNotWhatALinkPointsTo) {
  test::TempDir dir;
  const fs::path root = fs::path(dir.path()) / "tree";
  fs::create_directories(root / "a" / "b" / "c");
  std::ofstream(root / "a" / "f.txt") << "x";
  std::ofstream(root / "a" / "b" / "c" / "g.bin") << "y";
  fs::create_directories(fs::path(dir.path()) / "outside");
  std::ofstream(fs::path(dir.path()) / "outside" / "keep.txt") << "z";
  std::error_code ec;
  fs::create_directory_symlink(fs::path(dir.path()) / "outside", root / "a" / "link", ec);
  EXPECT_TRUE(remove_tree(root.string()));
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "outside" / "keep.txt")) << "followed a link out of the tree";
  EXPECT_TRUE(remove_tree((root / "never-there").string()));
  // A single file is a tree too.
  std::ofstream(fs::path(dir.path()) / "one.txt") << "w";
  EXPECT_TRUE(remove_tree(dir.file("one.txt")));
  EXPECT_FALSE(fs::exists(dir.file("one.txt")));
}

}  // namespace
}  // namespace fastslow
