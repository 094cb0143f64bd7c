// Removing a folder tree without std::filesystem's walk (io/remove_tree.h).
#include "fastslow/io/remove_tree.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#ifndef __EMSCRIPTEN__
#include <sys/wait.h>
#include <unistd.h>
#endif

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

#ifndef __EMSCRIPTEN__
// A TempDir never destroyed (a fixture kept to the end of its process) is
// removed when that process exits, and a forked child's exit leaves its
// parent's folders alone.
TEST(TempDir, OneNeverDestroyedIsRemovedWhenItsProcessExits) {
  test::TempDir parent_dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::fflush(nullptr);  // the child's exit flushes what it inherited
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    static test::TempDir* kept = new test::TempDir;  // reachable, never destroyed
    std::ofstream(kept->file("x.txt")) << "y";
    const std::string line = kept->path() + "\n";
    (void)!::write(fds[1], line.data(), line.size());
    std::exit(0);
  }
  ::close(fds[1]);
  std::string path;
  for (char c; ::read(fds[0], &c, 1) == 1 && c != '\n';) path += c;
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_FALSE(path.empty());
  EXPECT_FALSE(fs::exists(path)) << path << " outlived its process";
  EXPECT_TRUE(fs::exists(parent_dir.path())) << "a child's exit removed its parent's folder";
}
#endif

}  // namespace
}  // namespace fastslow
