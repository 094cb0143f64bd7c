#include "fastslow/io/npz_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "fastslow/error.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

using namespace fastslow;
using fastslow::test::TempDir;

namespace {

struct Sample {
  std::vector<float> feat;
  std::vector<int64_t> ids;
  std::vector<uint8_t> ops;
  std::vector<double> f64;
  std::vector<int32_t> i32;
  std::vector<uint16_t> u16;
  std::vector<bool> flags;
};

Sample make_sample() {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  Sample s;
  for (int i = 0; i < 50 * 26 * 10; ++i) s.feat.push_back(std::round(u(rng) * 3));
  for (int i = 0; i < 26; ++i) s.ids.push_back(i * 7 + (int64_t(1) << 40));
  for (int i = 0; i < 300; ++i) s.ops.push_back(static_cast<uint8_t>(i % 121));
  for (int i = 0; i < 9; ++i) s.f64.push_back(u(rng) * 1e300);
  for (int i = 0; i < 12; ++i) s.i32.push_back(-i * 100000);
  for (int i = 0; i < 5; ++i) s.u16.push_back(static_cast<uint16_t>(65535 - i));
  for (int i = 0; i < 4; ++i) s.flags.push_back(i % 3 == 0);
  return s;
}

void add_sample(NpzWriter& w, const Sample& s) {
  w.add("node_config_feat", s.feat, {50, 26, 10});
  w.add("node_config_ids", s.ids, {26});
  w.add("node_opcode", s.ops, {300});
  w.add("f64", s.f64, {3, 3});
  w.add("i32", s.i32, {2, 2, 3});
  w.add("u16", s.u16, {5});
  w.add("flags", s.flags, {2, 2});
  w.add("empty", std::vector<float>{}, {0, 18});
  w.add("scalar", std::vector<int64_t>{-7}, {});
}

template <class T>
std::vector<T> values(const NpyArray& a) {
  return std::vector<T>(a.as<T>(), a.as<T>() + a.count());
}

void check_sample(const NpzReader& r, const Sample& s) {
  EXPECT_EQ(values<float>(r.read("node_config_feat")), s.feat);
  EXPECT_EQ(r.header("node_config_feat").shape, (std::vector<int64_t>{50, 26, 10}));
  EXPECT_EQ(values<int64_t>(r.read("node_config_ids")), s.ids);
  EXPECT_EQ(values<uint8_t>(r.read("node_opcode")), s.ops);
  EXPECT_EQ(values<double>(r.read("f64")), s.f64);
  EXPECT_EQ(values<int32_t>(r.read("i32")), s.i32);
  EXPECT_EQ(values<uint16_t>(r.read("u16")), s.u16);
  const NpyArray flags = r.read("flags");
  EXPECT_EQ(flags.dtype(), DType::Bool);
  for (size_t i = 0; i < s.flags.size(); ++i) EXPECT_EQ(flags.as<bool>()[i], s.flags[i]);
  EXPECT_EQ(r.read("empty").shape(), (std::vector<int64_t>{0, 18}));
  EXPECT_EQ(r.read("scalar").to_int64(), (std::vector<int64_t>{-7}));
}

}  // namespace

TEST(NpzWriter, RoundTripsInMemory) {
  const Sample s = make_sample();
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    NpzWriter w(c);
    add_sample(w, s);
    const NpzReader r = NpzReader::from_memory("mem.npz", w.close_to_memory());
    EXPECT_EQ(r.compressed("node_config_feat"), c == Compression::Deflate);
    check_sample(r, s);
  }
}

TEST(NpzWriter, SameArraysGiveIdenticalBytes) {
  const Sample s = make_sample();
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    NpzWriter a(c), b(c);
    add_sample(a, s);
    add_sample(b, s);
    EXPECT_EQ(a.close_to_memory(), b.close_to_memory());
  }
}

TEST(NpzWriter, FileWriteIsAtomic) {
  TempDir dir;
  const std::string path = dir.file("g.npz");
  {
    NpzWriter w(path, Compression::Deflate);
    w.add("x", std::vector<float>{1, 2}, {2});
    EXPECT_FALSE(std::filesystem::exists(path));  // only the temporary file until close
    EXPECT_EQ(test::temp_files_beside(path).size(), 1u);
  }
  // Destroyed without close(): nothing left behind.
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(test::temp_files_beside(path).empty());
  NpzWriter w(path, Compression::Deflate);
  w.add("x", std::vector<float>{1, 2}, {2});
  w.close();
  EXPECT_EQ(NpzReader::open(path).read("x").to_float(), (std::vector<float>{1, 2}));
  EXPECT_THROW(w.add("y", std::vector<float>{1}, {1}), Error);
}

// Two runs building the same cache file at once: each writes its own
// temporary file, the last to finish replaces the other's whole file.
TEST(NpzWriter, TwoWritersOfOnePathDoNotCollide) {
  TempDir dir;
  const std::string path = dir.file("g.npz");
  NpzWriter a(path, Compression::Stored), b(path, Compression::Stored);
  a.add("x", std::vector<float>{1, 2, 3}, {3});
  b.add("x", std::vector<float>{4, 5}, {2});
  a.close();
  EXPECT_EQ(NpzReader::open(path).read("x").to_float(), (std::vector<float>{1, 2, 3}));
  b.close();
  EXPECT_EQ(NpzReader::open(path).read("x").to_float(), (std::vector<float>{4, 5}));
  EXPECT_TRUE(test::temp_files_beside(path).empty());
}

TEST(NpzWriter, RejectsDuplicateNamesAndBadShapes) {
  NpzWriter w(Compression::Stored);
  w.add("x", std::vector<float>{1}, {1});
  EXPECT_THROW(w.add("x", std::vector<float>{1}, {1}), Error);
  EXPECT_THROW(w.add("y", std::vector<float>{1, 2, 3}, {2}), std::invalid_argument);
  EXPECT_THROW(NpzWriter("/nonexistent-dir/x.npz", Compression::Stored), Error);
}

TEST(NpzWriter, ManyEntriesUseZip64EndRecord) {
  // Over 65535 entries forces the zip64 end-of-central-directory record.
  NpzWriter w(Compression::Stored);
  for (int i = 0; i < 65600; ++i) w.add("a" + std::to_string(i), std::vector<int32_t>{i}, {1});
  const std::vector<uint8_t> bytes = w.close_to_memory();
  const NpzReader r = NpzReader::from_memory("many.npz", bytes);
  ASSERT_EQ(r.names().size(), 65600u);
  EXPECT_EQ(r.read("a65599").to_int64(), (std::vector<int64_t>{65599}));
  if (!test::numpy_available()) return;
  TempDir dir;
  test::write_bytes(dir.file("many.npz"), bytes);
  std::string out;
  ASSERT_EQ(test::run_python("import numpy as np\nz = np.load('" + dir.file("many.npz") + "')\n"
                             "assert len(z.files) == 65600\nassert int(z['a65599'][0]) == 65599\n", &out), 0) << out;
}

TEST(NpzWriter, NumpyLoadsWhatWeWriteAndWeLoadWhatItRewrites) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const Sample s = make_sample();
  TempDir dir;
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    const std::string ours = dir.file(c == Compression::Stored ? "ours_s.npz" : "ours_d.npz");
    NpzWriter w(ours, c);
    add_sample(w, s);
    w.close();
    // numpy checks dtypes, shapes and a few values, then re-saves everything.
    std::string out;
    const std::string theirs = ours + ".numpy.npz";
    ASSERT_EQ(test::run_python(
                  "import numpy as np, zipfile\n"
                  "assert zipfile.ZipFile('" + ours + "').testzip() is None\n"
                  "z = np.load('" + ours + "')\n"
                  "assert z['node_config_feat'].dtype == np.float32 and z['node_config_feat'].shape == (50, 26, 10)\n"
                  "assert z['node_config_ids'].dtype == np.int64 and int(z['node_config_ids'][1]) == 7 + 2**40\n"
                  "assert z['node_opcode'].dtype == np.uint8 and list(z['node_opcode'][119:122]) == [119, 120, 0]\n"
                  "assert z['flags'].dtype == np.bool_ and z['flags'].tolist() == [[True, False], [False, True]]\n"
                  "assert z['u16'].dtype == np.uint16 and int(z['u16'][0]) == 65535\n"
                  "assert z['empty'].shape == (0, 18) and z['scalar'].shape == () and int(z['scalar']) == -7\n"
                  "np.savez_compressed('" + theirs + "', **{k: z[k] for k in z.files})\n",
                  &out),
              0)
        << out;
    check_sample(NpzReader::open(theirs), s);
  }
}
