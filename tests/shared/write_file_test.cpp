#include "fastslow/io/write_file.h"

#include <gtest/gtest.h>

#ifndef __EMSCRIPTEN__
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <filesystem>
#include <string>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

std::string text(const std::string& path) {
  const std::vector<uint8_t> b = test::read_bytes(path);
  return std::string(b.begin(), b.end());
}

TEST(WriteFile, ReplacesTheFileWholeAndLeavesNothingBeside) {
  test::TempDir dir;
  const std::string path = dir.file("a.json");
  write_file_atomically(path, "{\"v\": 1}\n");
  write_file_atomically(path, "{}\n");
  EXPECT_EQ(text(path), "{}\n");
  EXPECT_TRUE(test::temp_files_beside(path).empty());
  {
    TempFile t(path);
    t.write("half");
    EXPECT_EQ(text(path), "{}\n");  // only the temporary file until commit
  }  // dropped without commit: removed, the file kept
  EXPECT_EQ(text(path), "{}\n");
  EXPECT_TRUE(test::temp_files_beside(path).empty());
  EXPECT_THROW(write_file_atomically(dir.file("no/such/dir/a.json"), "x"), Error);
}

// Two writers of one path at once: each its own temporary file, the last
// rename wins, neither sees the other's bytes.
TEST(WriteFile, ALiveWritersTemporaryFileIsNotTakenOver) {
  test::TempDir dir;
  const std::string path = dir.file("a.json");
  TempFile first(path);
  first.write("first, longer");
  write_file_atomically(path, "second");
  EXPECT_EQ(text(path), "second");
  first.commit();
  EXPECT_EQ(text(path), "first, longer");
  EXPECT_TRUE(test::temp_files_beside(path).empty());
}

#ifndef __EMSCRIPTEN__
// A writer killed half-way (SIGKILL: nothing of it runs again) leaves its
// temporary file; the next writer of the path takes it over, so kills never
// pile leftovers up (a graph cache file can be hundreds of MB).
TEST(WriteFile, AKilledWritersLeftoverIsTakenOverByTheNextWriter) {
  test::TempDir dir;
  const std::string path = dir.file("cache.npz");
  write_file_atomically(path, "old");
  for (int kill = 0; kill < 3; ++kill) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TempFile t(path);
      t.write(std::string(1 << 16, 'x'));
      (void)!::write(ready[1], "1", 1);
      ::pause();  // killed here, mid-write
      ::_exit(0);
    }
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ::close(ready[1]);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(text(path), "old");  // the file under its name is whole
    EXPECT_EQ(test::temp_files_beside(path).size(), 1u) << "kill " << kill;
  }
  write_file_atomically(path, "new");
  EXPECT_EQ(text(path), "new");
  EXPECT_TRUE(test::temp_files_beside(path).empty());
}
#endif

}  // namespace
}  // namespace fastslow
