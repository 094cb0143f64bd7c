#include "fastslow/data/collection.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

namespace fs = std::filesystem;

// A scratch dataset tree, removed afterwards even when the test fails.
class Tree : public test::TempDir {
 public:
  fs::path root() const { return fs::path(path()); }
  std::string str() const { return path(); }
  // Creates an empty placeholder file (and its parents).
  void touch(const std::string& rel) const {
    const fs::path p = root() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream f(p);
  }
  void mkdir(const std::string& rel) const { fs::create_directories(root() / rel); }
};

using test::error_of;

std::vector<std::string> ids_of(const std::vector<Collection>& cs) {
  std::vector<std::string> out;
  for (const Collection& c : cs) out.push_back(c.id.str());
  return out;
}

std::vector<std::string> stems(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) out.push_back(file_stem(p));
  return out;
}

TEST(CollectionId, ParsesAllFive) {
  const std::vector<std::string>& ids = all_collection_ids();
  ASSERT_EQ(ids, (std::vector<std::string>{"tile:xla", "layout:xla:random",
                                           "layout:xla:default", "layout:nlp:random",
                                           "layout:nlp:default"}));
  for (const std::string& id : ids) EXPECT_EQ(parse_collection_id(id).str(), id);

  CollectionId t = parse_collection_id("tile:xla");
  EXPECT_EQ(t.kind, fastslow::GraphKind::Tile);
  EXPECT_EQ(t.source, "xla");
  EXPECT_EQ(t.search, "");
  CollectionId l = parse_collection_id("layout:nlp:default");
  EXPECT_EQ(l.kind, fastslow::GraphKind::Layout);
  EXPECT_EQ(l.source, "nlp");
  EXPECT_EQ(l.search, "default");
}

TEST(CollectionId, RejectsOthersAndListsValid) {
  for (const char* bad : {"", "tile", "tile:nlp", "tile:xla:random", "layout:xla",
                          "layout:xla:random:x", "Layout:xla:random", " tile:xla"}) {
    std::string msg = error_of([&] { parse_collection_id(bad); });
    ASSERT_FALSE(msg.empty()) << bad;
    EXPECT_NE(msg.find("valid ids: tile:xla, layout:xla:random"), std::string::npos) << msg;
  }
}

TEST(FileStem, DropsDirectoryAndExtension) {
  EXPECT_EQ(file_stem("a/b/c.npz"), "c");
  EXPECT_EQ(file_stem("c.npz"), "c");
  EXPECT_EQ(file_stem("/x/alexnet_train_batch_32.npz"), "alexnet_train_batch_32");
  EXPECT_EQ(file_stem("a/b.c.npz"), "b.c");
}

TEST(Discover, FullTreeFromDatasetRoot) {
  Tree d;
  d.touch("npz/tile/xla/train/b.npz");
  d.touch("npz/tile/xla/train/a.npz");
  d.touch("npz/tile/xla/valid/v.npz");
  d.touch("npz/tile/xla/test/t.npz");
  for (const char* src : {"xla", "nlp"})
    for (const char* search : {"default", "random"})
      for (const char* split : {"train", "valid", "test"})
        d.touch(std::string("npz/layout/") + src + "/" + search + "/" + split + "/g.npz");

  std::vector<Collection> cs = discover_collections(d.str());
  EXPECT_EQ(ids_of(cs), all_collection_ids());
  EXPECT_EQ(cs[0].dir, (d.root() / "npz" / "tile" / "xla").string());
  EXPECT_EQ(cs[1].dir, (d.root() / "npz" / "layout" / "xla" / "random").string());
  EXPECT_EQ(stems(cs[0].split("train")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cs[0].split("train")[0], (d.root() / "npz/tile/xla/train/a.npz").string());
  for (const Collection& c : cs) EXPECT_EQ(c.files.size(), 3u) << c.id.str();
}

TEST(Discover, AcceptsNpzDirectoryItself) {
  Tree d;
  d.touch("npz/layout/nlp/default/valid/x.npz");
  std::vector<Collection> cs = discover_collections((d.root() / "npz").string());
  ASSERT_EQ(ids_of(cs), (std::vector<std::string>{"layout:nlp:default"}));
  EXPECT_EQ(stems(cs[0].split("valid")), (std::vector<std::string>{"x"}));
}

TEST(Discover, PartialTreeKeepsFixedOrderAndOnlyPresentSplits) {
  Tree d;
  d.touch("npz/layout/nlp/random/test/z.npz");
  d.touch("npz/layout/xla/default/train/y.npz");
  d.mkdir("npz/layout/xla/random");  // no split dir: not a collection
  std::vector<Collection> cs = discover_collections(d.str());
  ASSERT_EQ(ids_of(cs), (std::vector<std::string>{"layout:xla:default", "layout:nlp:random"}));
  EXPECT_EQ(cs[0].files.size(), 1u);
  EXPECT_EQ(cs[0].files.count("train"), 1u);
  EXPECT_TRUE(cs[0].split("valid").empty());
  EXPECT_TRUE(cs[0].split("bogus").empty());
}

TEST(Discover, IgnoresNonNpzAndSortsByName) {
  Tree d;
  for (const char* n : {"c.npz", "a.npz", "B.npz", "notes.txt", "d.npz.part", "npz"})
    d.touch(std::string("npz/tile/xla/train/") + n);
  d.mkdir("npz/tile/xla/train/dir.npz");  // a directory, not a file
  d.mkdir("npz/tile/xla/validation");     // not a split name
  std::vector<Collection> cs = discover_collections(d.str());
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(stems(cs[0].split("train")), (std::vector<std::string>{"B", "a", "c"}));
  EXPECT_EQ(cs[0].files.size(), 1u);
}

TEST(Discover, EmptySplitDirIsPresentButEmpty) {
  Tree d;
  d.mkdir("npz/tile/xla/test");
  std::vector<Collection> cs = discover_collections(d.str());
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].files.count("test"), 1u);
  EXPECT_TRUE(cs[0].split("test").empty());
}

TEST(Discover, Errors) {
  Tree d;
  std::string missing = (d.root() / "nope").string();
  std::string msg = error_of([&] { discover_collections(missing); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;

  d.touch("file.npz");
  msg = error_of([&] { discover_collections((d.root() / "file.npz").string()); });
  EXPECT_NE(msg.find("not a directory"), std::string::npos) << msg;

  d.mkdir("npz/tile/xla");  // collection dir with no split dirs
  msg = error_of([&] { discover_collections(d.str()); });
  EXPECT_NE(msg.find(d.str()), std::string::npos) << msg;
  EXPECT_NE(msg.find("npz/layout/{xla,nlp}/{default,random}/{train,valid,test}/*.npz"),
            std::string::npos)
      << msg;
}

TEST(FindCollection, FindsPresentAndListsOthers) {
  Tree d;
  d.touch("npz/tile/xla/train/a.npz");
  d.touch("npz/layout/xla/random/valid/b.npz");
  Collection c = find_collection(d.str(), "layout:xla:random");
  EXPECT_EQ(c.id.str(), "layout:xla:random");
  EXPECT_EQ(stems(c.split("valid")), (std::vector<std::string>{"b"}));

  std::string msg = error_of([&] { find_collection(d.str(), "layout:nlp:default"); });
  EXPECT_NE(msg.find("present: tile:xla, layout:xla:random"), std::string::npos) << msg;
  EXPECT_NE(msg.find(d.str()), std::string::npos) << msg;

  msg = error_of([&] { find_collection(d.str(), "layout:tpu"); });
  EXPECT_NE(msg.find("valid ids"), std::string::npos) << msg;
}

}  // namespace
}  // namespace fastslow
