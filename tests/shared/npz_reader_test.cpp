#include "fastslow/io/npz_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/io/npz_writer.h"
#include "test_support.h"

using namespace fastslow;
using fastslow::test::TempDir;

namespace {

// Rows of a full read, the reference for every partial read.
std::vector<uint8_t> rows_of(const NpyArray& full, const std::vector<int64_t>& rows) {
  const size_t rb = full.nbytes() / static_cast<size_t>(full.dim(0));
  std::vector<uint8_t> out;
  for (int64_t r : rows) out.insert(out.end(), full.data() + r * rb, full.data() + (r + 1) * rb);
  return out;
}

std::vector<uint8_t> bytes_of(const NpyArray& a) { return std::vector<uint8_t>(a.data(), a.data() + a.nbytes()); }

void check_partial_reads(const NpzReader& npz, const std::string& name, std::mt19937& rng) {
  const NpyArray full = npz.read(name);
  const int64_t n = full.dim(0);
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  for (int trial = 0; trial < 5; ++trial) {
    int64_t a = pick(rng), b = pick(rng);
    if (a > b) std::swap(a, b);
    const NpyArray part = npz.read_rows(name, a, b + 1);
    std::vector<int64_t> idx;
    for (int64_t r = a; r <= b; ++r) idx.push_back(r);
    ASSERT_EQ(part.dim(0), b + 1 - a);
    EXPECT_EQ(bytes_of(part), rows_of(full, idx)) << name << " [" << a << ", " << b + 1 << ")";
  }
  // Unsorted, repeated, adjacent rows.
  std::vector<int64_t> idx = {pick(rng), 0, n - 1, pick(rng), 0, pick(rng)};
  idx.push_back(idx[0]);
  idx.push_back(idx[0] + 1 < n ? idx[0] + 1 : 0);
  const NpyArray chosen = npz.read_rows(name, idx);
  EXPECT_EQ(chosen.shape()[0], static_cast<int64_t>(idx.size()));
  for (int d = 1; d < full.ndim(); ++d) EXPECT_EQ(chosen.dim(d), full.dim(d));
  EXPECT_EQ(bytes_of(chosen), rows_of(full, idx)) << name;
  EXPECT_EQ(npz.read_rows(name, 0, 0).dim(0), 0);
  EXPECT_EQ(npz.read_rows(name, std::vector<int64_t>{}).dim(0), 0);
  // Consecutive rows asked out of order: they span consecutive output slots
  // but must not be read in place (a regression: rows landed permuted).
  if (n >= 4) {
    const std::vector<int64_t> shuffled = {0, 2, 1, 3};
    EXPECT_EQ(bytes_of(npz.read_rows(name, shuffled)), rows_of(full, shuffled)) << name;
    std::vector<int64_t> perm(static_cast<size_t>(std::min<int64_t>(n, 64)));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    EXPECT_EQ(bytes_of(npz.read_rows(name, perm)), rows_of(full, perm)) << name;
  }

  std::vector<uint8_t> streamed;
  int64_t expect_first = 0;
  npz.for_each_chunk(name, 7, [&](int64_t first, const NpyArray& c) {
    EXPECT_EQ(first, expect_first);
    expect_first += c.dim(0);
    streamed.insert(streamed.end(), c.data(), c.data() + c.nbytes());
  });
  EXPECT_EQ(streamed, bytes_of(full));
}

}  // namespace

TEST(NpzReader, ReadsTheRealSample) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  EXPECT_EQ(npz.names(), (std::vector<std::string>{"edge_index", "node_opcode", "node_config_ids", "node_splits",
                                                     "config_runtime", "node_feat", "node_config_feat"}));
  EXPECT_TRUE(npz.compressed("node_config_feat"));
  const NpyHeader& h = npz.header("node_config_feat");
  EXPECT_EQ(h.dtype, DType::F32);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{47712, 26, 10}));
  EXPECT_EQ(npz.header("node_opcode").dtype, DType::U8);
  EXPECT_TRUE(npz.header("node_feat").fortran_order);
  const NpyArray splits = npz.read("node_splits");
  EXPECT_EQ(splits.to_int64(), (std::vector<int64_t>{0, 324, 372}));
  // Layout values are minor-to-major indices.
  const NpyArray feat = npz.read("node_config_feat");
  for (int64_t i = 0; i < feat.count(); ++i) {
    const float v = feat.as<float>()[i];
    ASSERT_TRUE(v >= -1 && v <= 5) << i;
  }
}

TEST(NpzReader, PartialReadsEqualFullReadsOnTheRealSample) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  std::mt19937 rng(7);
  for (const char* name : {"node_config_feat", "config_runtime", "node_feat", "edge_index", "node_opcode"})
    check_partial_reads(npz, name, rng);
}

TEST(NpzReader, PartialReadsOnStoredCopy) {
  // Re-pack the sample uncompressed: rows are then read at their offsets.
  const NpzReader src = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  NpzWriter w(Compression::Stored);
  for (const std::string& n : src.names()) w.add(n, src.read(n));
  const NpzReader npz = NpzReader::from_memory("stored.npz", w.close_to_memory());
  EXPECT_FALSE(npz.compressed("node_config_feat"));
  std::mt19937 rng(11);
  for (const char* name : {"node_config_feat", "config_runtime", "node_feat", "edge_index"})
    check_partial_reads(npz, name, rng);
}

TEST(NpzReader, FortranOrderIsTransposedToCOrder) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const NpyArray f = npz.read("node_feat");  // stored in Fortran order
  ASSERT_EQ(f.shape(), (std::vector<int64_t>{372, 70}));
  // The raw entry is the transposed (70, 372) C array; compare element-wise
  // against a read of the same bytes through a C-order header.
  const NpyArray c = npz.read_rows("node_feat", 0, 372);
  EXPECT_EQ(bytes_of(c), bytes_of(f));
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  std::string out;
  ASSERT_EQ(test::run_python("import numpy as np\n"
                             "a = np.load('" + test::data_file("cleaned_alexnet.npz") + "')['node_feat']\n"
                             "print(repr(float(a[5, 3])), repr(float(a[371, 69])), repr(float(a[100, 0])))\n",
                             &out),
            0);
  const float* v = f.as<float>();
  std::istringstream in(out);
  double x, y, z;
  in >> x >> y >> z;
  EXPECT_EQ(v[5 * 70 + 3], static_cast<float>(x));
  EXPECT_EQ(v[371 * 70 + 69], static_cast<float>(y));
  EXPECT_EQ(v[100 * 70 + 0], static_cast<float>(z));
}

TEST(NpzReader, ReadsWhatNumpyWrites) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  TempDir dir;
  // Every supported dtype, both byte orders, both memory orders, 0-d and empty.
  const std::string script = R"(
import numpy as np, sys
rng = np.random.default_rng(3)
arrs = {}
for t in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64']:
    a = (rng.integers(0, 100, size=(13, 5, 3)) - (0 if t.startswith('u') or t == 'bool' else 50)).astype(t)
    arrs['c_' + t] = a
    arrs['be_' + t] = a.astype(np.dtype(t).newbyteorder('>'))
    arrs['f_' + t] = np.asfortranarray(a)
arrs['scalar'] = np.array(3.5)
arrs['empty'] = np.zeros((0, 4), dtype=np.int64)
np.savez(sys.argv[1] + '/stored.npz', **arrs)
np.savez_compressed(sys.argv[1] + '/deflated.npz', **arrs)
# Reference values as a flat little-endian C-order text dump.
with open(sys.argv[1] + '/ref.txt', 'w') as f:
    for k, v in arrs.items():
        f.write(k + ' ' + ' '.join(str(x) for x in np.ascontiguousarray(v).astype(np.float64).ravel()) + '\n')
)";
  const std::string py = dir.file("gen.py");
  test::write_bytes(py, std::vector<uint8_t>(script.begin(), script.end()));
  std::string out;
  ASSERT_EQ(test::run_python("import sys, runpy\nsys.argv = ['x', '" + dir.path() + "']\nrunpy.run_path('" + py + "')\n", &out), 0) << out;

  std::map<std::string, std::vector<double>> ref;
  {
    const std::vector<uint8_t> text = test::read_bytes(dir.file("ref.txt"));
    std::istringstream in(std::string(text.begin(), text.end()));
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string key;
      ls >> key;
      ref[key];  // an empty array has no values on its line
      double v;
      while (ls >> v) ref[key].push_back(v);
    }
  }
  for (const char* file : {"stored.npz", "deflated.npz"}) {
    const NpzReader npz = NpzReader::open(dir.file(file));
    EXPECT_EQ(npz.compressed("c_int8"), std::string(file) == "deflated.npz");
    EXPECT_EQ(npz.names().size(), ref.size());
    std::mt19937 rng(5);
    for (const auto& [key, values] : ref) {
      const NpyArray a = npz.read(key);
      EXPECT_EQ(a.to_double(), values) << file << " " << key;
      if (a.ndim() > 0 && a.dim(0) > 0) check_partial_reads(npz, key, rng);
    }
    EXPECT_EQ(npz.header("scalar").shape.size(), 0u);
    EXPECT_EQ(npz.read("empty").shape(), (std::vector<int64_t>{0, 4}));
    EXPECT_EQ(npz.header("be_float32").dtype, DType::F32);
  }
}

TEST(NpzReader, ErrorsNameFileAndArray) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  try {
    npz.read("nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.file().find("cleaned_alexnet.npz"), std::string::npos);
    EXPECT_EQ(e.array(), "nope");
  }
  EXPECT_THROW(npz.read_rows("config_runtime", 10, 47713), Error);
  EXPECT_THROW(npz.read_rows("config_runtime", std::vector<int64_t>{-1}), Error);
  EXPECT_THROW(NpzReader::open("/nonexistent/file.npz"), Error);
}

TEST(NpzReader, ReadsFromABorrowedBuffer) {
  // The browser hands over a file's bytes; the view reads them in place.
  const std::vector<uint8_t> bytes = test::read_bytes(test::data_file("cleaned_alexnet.npz"));
  const NpzReader view(memory_view_source("alexnet.npz", bytes.data(), bytes.size()));
  const NpzReader file = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  EXPECT_EQ(view.file(), "alexnet.npz");
  for (const std::string& name : file.names()) EXPECT_EQ(bytes_of(view.read(name)), bytes_of(file.read(name))) << name;
  EXPECT_EQ(bytes_of(view.read_rows("node_config_feat", {3, 47000})),
            bytes_of(file.read_rows("node_config_feat", {3, 47000})));
  try {
    NpzReader cut(memory_view_source("cut.npz", bytes.data(), bytes.size() / 3));
    FAIL() << "a truncated buffer must not open";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "cut.npz");
  }
}

// A fuzz regression (fuzz/corpus/npz_partial/regress-zero-width-rows.npz):
// 'a' claims 2^60 rows of shape (0,), so it holds no bytes and opens; streaming
// it in chunks of a few rows never finished, and a range of its rows was
// listed row by row first.
TEST(NpzReader, ZeroWidthRowsStreamAsOneChunk) {
  const NpzReader r = NpzReader::from_memory("z.npz", test::fuzz_input("npz_partial", "regress-zero-width-rows.npz"));
  const int64_t n = int64_t(1) << 60;
  ASSERT_EQ(r.header("a").shape, (std::vector<int64_t>{n, 0}));
  int calls = 0;
  r.for_each_chunk("a", 3, [&](int64_t first, const NpyArray& chunk) {
    EXPECT_EQ(first, 0);
    EXPECT_EQ(chunk.shape(), (std::vector<int64_t>{n, 0}));
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  const NpyArray all = r.read_rows("a", 0, n);
  EXPECT_EQ(all.shape(), (std::vector<int64_t>{n, 0}));
  EXPECT_EQ(all.nbytes(), 0u);
  EXPECT_EQ(r.read_rows("a", std::vector<int64_t>{n - 1, 0}).shape(), (std::vector<int64_t>{2, 0}));
}
