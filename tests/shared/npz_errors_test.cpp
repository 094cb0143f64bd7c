// Bad input never crashes or over-allocates: truncated zips, bad CRCs, bad
// magic, unknown dtypes, headers whose shape claims more bytes than the entry
// holds. Every failure is a fastslow::Error naming the file, the array and the
// problem. (Shape mismatches *between* arrays are the graph loader's business
// and are tested with it; this file covers the archive level.)
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fastslow/io/byte_source.h"
#include "fastslow/error.h"
#include "fastslow/io/npy.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/io/zip.h"
#include "test_support.h"

using namespace fastslow;
using fastslow::test::TempDir;

namespace {

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------------------
// Little-endian writers and a hand-rolled stored zip, so entries can hold any
// bytes at all (the real writer only produces valid .npy members).

void put16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v & 0xff));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void put32(Bytes& b, uint32_t v) {
  put16(b, static_cast<uint16_t>(v & 0xffff));
  put16(b, static_cast<uint16_t>(v >> 16));
}
void put64(Bytes& b, uint64_t v) {
  put32(b, static_cast<uint32_t>(v & 0xffffffffu));
  put32(b, static_cast<uint32_t>(v >> 32));
}
void append(Bytes& b, const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }
void append(Bytes& b, const Bytes& s) { b.insert(b.end(), s.begin(), s.end()); }
uint32_t get32(const Bytes& b, size_t at) {
  return uint32_t(b[at]) | (uint32_t(b[at + 1]) << 8) | (uint32_t(b[at + 2]) << 16) | (uint32_t(b[at + 3]) << 24);
}
void set16(Bytes& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v & 0xff);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}
void set32(Bytes& b, size_t at, uint32_t v) {
  set16(b, at, static_cast<uint16_t>(v & 0xffff));
  set16(b, at + 2, static_cast<uint16_t>(v >> 16));
}

struct RawEntry {
  RawEntry(std::string n, Bytes d, uint16_t m = 0, std::optional<uint64_t> s = std::nullopt,
           std::optional<uint32_t> c = std::nullopt, bool z64 = false)
      : name(std::move(n)), data(std::move(d)), method(m), size(s), crc(c), zip64_sizes(z64) {}
  std::string name;
  Bytes data;                     // the bytes as stored (already deflated when method == 8)
  uint16_t method = 0;            // 0 stored, 8 deflate
  std::optional<uint64_t> size;   // uncompressed size claimed; default data.size()
  std::optional<uint32_t> crc;    // default: CRC-32 of data
  bool zip64_sizes = false;       // central directory sizes as 0xffffffff + zip64 extra
};

struct ZipOptions {
  bool zip64_end = false;                 // write a zip64 end record and locator
  std::optional<uint64_t> zip64_entries;  // entry count claimed by that record
};

Bytes build_zip(const std::vector<RawEntry>& entries, const ZipOptions& opt = {}) {
  Bytes out;
  std::vector<uint64_t> offsets;
  auto crc_of = [](const RawEntry& e) {
    return e.crc ? *e.crc : crc32_update(0, e.data.data(), e.data.size());
  };
  auto size_of = [](const RawEntry& e) { return e.size ? *e.size : e.data.size(); };
  for (const RawEntry& e : entries) {
    offsets.push_back(out.size());
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, e.method);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, crc_of(e));
    put32(out, static_cast<uint32_t>(e.data.size()));
    put32(out, static_cast<uint32_t>(size_of(e)));
    put16(out, static_cast<uint16_t>(e.name.size()));
    put16(out, 0);
    append(out, e.name);
    append(out, e.data);
  }
  const uint64_t cd_offset = out.size();
  for (size_t k = 0; k < entries.size(); ++k) {
    const RawEntry& e = entries[k];
    Bytes extra;
    if (e.zip64_sizes) {
      put16(extra, 0x0001);
      put16(extra, 16);
      put64(extra, size_of(e));
      put64(extra, e.data.size());
    }
    put32(out, 0x02014b50);
    put16(out, 45);
    put16(out, 45);
    put16(out, 0);
    put16(out, e.method);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, crc_of(e));
    put32(out, e.zip64_sizes ? 0xffffffffu : static_cast<uint32_t>(e.data.size()));
    put32(out, e.zip64_sizes ? 0xffffffffu : static_cast<uint32_t>(size_of(e)));
    put16(out, static_cast<uint16_t>(e.name.size()));
    put16(out, static_cast<uint16_t>(extra.size()));
    put16(out, 0);
    put16(out, 0);
    put16(out, 0);
    put32(out, 0);
    put32(out, static_cast<uint32_t>(offsets[k]));
    append(out, e.name);
    append(out, extra);
  }
  const uint64_t cd_size = out.size() - cd_offset;
  const uint64_t n = entries.size();
  if (opt.zip64_end) {
    const uint64_t rec_at = out.size();
    const uint64_t claimed = opt.zip64_entries ? *opt.zip64_entries : n;
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, claimed);
    put64(out, claimed);
    put64(out, cd_size);
    put64(out, cd_offset);
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, rec_at);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, opt.zip64_end ? 0xffff : static_cast<uint16_t>(n));
  put16(out, opt.zip64_end ? 0xffff : static_cast<uint16_t>(n));
  put32(out, opt.zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_size));
  put32(out, opt.zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_offset));
  put16(out, 0);
  return out;
}

// A raw .npy member: magic, version, header length, the dict text as given
// (padded to 64 bytes and ended by '\n' as numpy does), then `data`.
Bytes npy_bytes(const std::string& dict, const Bytes& data, int major = 1, int minor = 0) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  while ((prefix + text.size() + 1) % 64 != 0) text += ' ';
  text += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), static_cast<uint8_t>(minor)};
  if (prefix == 10) {
    put16(out, static_cast<uint16_t>(text.size()));
  } else {
    put32(out, static_cast<uint32_t>(text.size()));
  }
  append(out, text);
  append(out, data);
  return out;
}

std::string dict_for(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

// Raw deflate (no zlib header), as zip entries hold it.
Bytes raw_deflate(const Bytes& in) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  Bytes out(deflateBound(&z, static_cast<uLong>(in.size())) + 16);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

// An entry holding `raw` as its uncompressed bytes, stored or deflated.
RawEntry make_entry(const std::string& name, const Bytes& raw, Compression c) {
  if (c == Compression::Stored) return RawEntry{name, raw};
  return RawEntry{name, raw_deflate(raw), 8, raw.size(), crc32_update(0, raw.data(), raw.size())};
}

Bytes one_entry_zip(const std::string& array, const Bytes& npy, Compression c = Compression::Stored) {
  return build_zip({make_entry(array + ".npy", npy, c)});
}

// ---------------------------------------------------------------------------
// A small valid archive, stored or deflated, with a 2-d, a 1-d, a 3-d and a 0-d array.

std::vector<float> a_values() {
  std::vector<float> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f - 1.25f;
  return v;
}
std::vector<int64_t> b_values() { return {7, -3, 1LL << 40, 0, 42}; }
std::vector<uint8_t> c_values() {
  std::vector<uint8_t> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(200 + i);
  return v;
}

Bytes sample_archive(Compression c) {
  NpzWriter w(c);
  w.add("a", a_values(), {3, 4});
  w.add("b", b_values(), {5});
  w.add("c", c_values(), {2, 2, 3});
  w.add("s", std::vector<double>{3.75}, {});
  return w.close_to_memory();
}

const char* label(Compression c) { return c == Compression::Stored ? "stored" : "deflated"; }

ZipEntry entry_of(const Bytes& zip, const std::string& entry_name) {
  for (const ZipEntry& e : read_zip_directory(*memory_source("probe.npz", zip)))
    if (e.name == entry_name) return e;
  throw std::runtime_error("test bug: no entry " + entry_name);
}

// Offset of the central directory entry for `entry_name` in an archive whose
// end record is the last 22 bytes (no comment, no zip64 end record).
size_t central_entry_offset(const Bytes& zip, const std::string& entry_name) {
  size_t at = get32(zip, zip.size() - 22 + 16);
  while (at + 46 <= zip.size() && get32(zip, at) == 0x02014b50) {
    const size_t name_len = zip[at + 28] | (zip[at + 29] << 8);
    const size_t extra_len = zip[at + 30] | (zip[at + 31] << 8);
    const size_t comment_len = zip[at + 32] | (zip[at + 33] << 8);
    if (std::string(zip.begin() + at + 46, zip.begin() + at + 46 + name_len) == entry_name) return at;
    at += 46 + name_len + extra_len + comment_len;
  }
  throw std::runtime_error("test bug: no central entry " + entry_name);
}

// ---------------------------------------------------------------------------
// Outcome checks.

// Runs f; returns the fastslow::Error it threw. Any other exception is a test
// failure (reported here, with its message); "nothing thrown" is left to the
// caller's ASSERT so it points at the right line.
std::optional<Error> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-fastslow exception: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "threw a non-std exception";
  }
  return std::nullopt;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void check_error(const std::function<void()>& f, const std::string& file, const std::string& array,
                 std::initializer_list<std::string> words) {
  const std::optional<Error> e = error_of(f);
  ASSERT_TRUE(e.has_value()) << "expected a fastslow::Error";
  EXPECT_EQ(e->file(), file) << e->what();
  EXPECT_EQ(e->array(), array) << e->what();
  EXPECT_FALSE(e->problem().empty());
  for (const std::string& w : words) EXPECT_TRUE(contains(e->problem(), w)) << "'" << w << "' not in: " << e->what();
  // what() is the one line the CLI and the page show: it names all three.
  EXPECT_TRUE(contains(e->what(), e->problem())) << e->what();
  if (!file.empty()) {
    EXPECT_TRUE(contains(e->what(), file)) << e->what();
  }
  if (!array.empty()) {
    EXPECT_TRUE(contains(e->what(), array)) << e->what();
  }
}

#define EXPECT_NPZ_ERROR(stmt, file, array, ...)                      \
  do {                                                                \
    SCOPED_TRACE(#stmt);                                              \
    check_error([&] { (void)(stmt); }, file, array, {__VA_ARGS__});   \
  } while (0)

enum class Outcome { Ok, FsError, Other };

// Opens the archive and reads every array every way the reader offers.
void open_and_read_all(const Bytes& bytes) {
  const NpzReader r = NpzReader::from_memory("fuzz.npz", bytes);
  for (const std::string& n : r.names()) {
    const NpyArray whole = r.read(n);
    (void)whole;
    const NpyHeader& h = r.header(n);
    if (h.shape.empty()) continue;
    const int64_t rows = h.rows();
    r.read_rows(n, 0, rows);
    if (rows > 0) r.read_rows(n, std::vector<int64_t>{rows - 1, 0, rows - 1});
    r.for_each_chunk(n, 2, [](int64_t, const NpyArray&) {});
  }
}

Outcome outcome_of(const Bytes& bytes, std::string* what) {
  try {
    open_and_read_all(bytes);
    return Outcome::Ok;
  } catch (const Error& e) {
    *what = e.what();
    return Outcome::FsError;
  } catch (const std::exception& e) {
    *what = std::string("non-fastslow exception: ") + e.what();
    return Outcome::Other;
  } catch (...) {
    *what = "non-std exception";
    return Outcome::Other;
  }
}

}  // namespace

// ===========================================================================
// Controls: the hand-built zip and npy members are valid when left alone, so
// the failures below come from the corruption and nothing else.

TEST(NpzErrorsControl, SampleArchivesReadBack) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const NpzReader r = NpzReader::from_memory("ok.npz", sample_archive(c));
    EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b", "c", "s"}));
    const NpyArray a = r.read("a");
    EXPECT_EQ(std::vector<float>(a.as<float>(), a.as<float>() + 12), a_values());
    const NpyArray b = r.read("b");
    EXPECT_EQ(std::vector<int64_t>(b.as<int64_t>(), b.as<int64_t>() + 5), b_values());
    std::string what;
    EXPECT_EQ(outcome_of(sample_archive(c), &what), Outcome::Ok) << what;
  }
}

TEST(NpzErrorsControl, HandBuiltZipWithBigEndianAndFortranMembersReads) {
  Bytes be;  // >i4 values 1, -2, 300
  for (int32_t v : {1, -2, 300}) {
    const uint32_t u = static_cast<uint32_t>(v);
    for (int s = 24; s >= 0; s -= 8) be.push_back(static_cast<uint8_t>(u >> s));
  }
  Bytes fo;  // Fortran-ordered (2, 3) uint8: column-major bytes of [[0,1,2],[3,4,5]]
  for (uint8_t v : {0, 3, 1, 4, 2, 5}) fo.push_back(v);
  for (const ZipOptions& opt : {ZipOptions{}, ZipOptions{true, std::nullopt}}) {
    SCOPED_TRACE(opt.zip64_end ? "zip64 end record" : "plain end record");
    const Bytes zip = build_zip({RawEntry{"be.npy", npy_bytes(dict_for(">i4", "(3,)"), be)},
                                 RawEntry{"fo.npy", npy_bytes(dict_for("|u1", "(2, 3)", true), fo), 0,
                                          std::nullopt, std::nullopt, true}},
                                opt);
    const NpzReader r = NpzReader::from_memory("hand.npz", zip);
    const NpyArray b = r.read("be");
    ASSERT_EQ(b.dtype(), DType::I32);
    EXPECT_EQ(std::vector<int32_t>(b.as<int32_t>(), b.as<int32_t>() + 3), (std::vector<int32_t>{1, -2, 300}));
    const NpyArray f = r.read("fo");
    ASSERT_EQ(f.shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(std::vector<uint8_t>(f.data(), f.data() + 6), (std::vector<uint8_t>{0, 1, 2, 3, 4, 5}));
    const NpyArray row = r.read_rows("fo", std::vector<int64_t>{1});
    EXPECT_EQ(std::vector<uint8_t>(row.data(), row.data() + 3), (std::vector<uint8_t>{3, 4, 5}));
  }
}

// ===========================================================================
// Truncation

TEST(NpzErrorsTruncated, EveryCutPointThrowsError) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    for (size_t len = 0; len < full.size(); ++len) {
      const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
      std::string what;
      const Outcome o = outcome_of(cut, &what);
      ASSERT_EQ(o, Outcome::FsError) << "cut at " << len << " of " << full.size() << ": "
                                     << (o == Outcome::Ok ? "read without error" : what);
      EXPECT_TRUE(contains(what, "fuzz.npz")) << what;
    }
  }
}

TEST(NpzErrorsTruncated, CutsAtOpenNameTheFileAndTheProblem) {
  const Bytes full = sample_archive(Compression::Stored);
  EXPECT_NPZ_ERROR(NpzReader::from_memory("t.npz", Bytes(full.begin(), full.end() - 1)), "t.npz", "",
                   "not a zip/npz file");
  EXPECT_NPZ_ERROR(NpzReader::from_memory("t.npz", Bytes(full.begin(), full.begin() + 10)), "t.npz", "",
                   "too short");
}

// The directory survives but an entry's data is cut short (a download that
// lost bytes in the middle, or a bad rewrite): rebuilt with consistent
// offsets, so only the entry itself is inconsistent.
TEST(NpzErrorsTruncated, EntryDataCutWithIntactDirectory) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    const ZipEntry a = entry_of(full, "a.npy");
    const ZipEntry b = entry_of(full, "b.npy");
    const Bytes a_data(full.begin() + static_cast<std::ptrdiff_t>(a.data_offset),
                       full.begin() + static_cast<std::ptrdiff_t>(a.data_offset + a.compressed_size));
    const Bytes b_data(full.begin() + static_cast<std::ptrdiff_t>(b.data_offset),
                       full.begin() + static_cast<std::ptrdiff_t>(b.data_offset + b.compressed_size));
    const uint16_t method = c == Compression::Stored ? 0 : 8;
    for (size_t keep = 0; keep < a_data.size(); ++keep) {
      SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(a_data.size()));
      RawEntry ea{"a.npy", Bytes(a_data.begin(), a_data.begin() + static_cast<std::ptrdiff_t>(keep)), method};
      // Stored: the sizes follow the cut. Deflated: the directory still
      // claims the full uncompressed size and CRC.
      if (method == 8) {
        ea.size = a.size;
        ea.crc = a.crc32;
      }
      RawEntry eb{"b.npy", b_data, method};
      if (method == 8) {
        eb.size = b.size;
        eb.crc = b.crc32;
      }
      const Bytes zip = build_zip({ea, eb});
      const std::optional<Error> e = error_of([&] {
        const NpzReader r = NpzReader::from_memory("cut.npz", zip);
        r.read("a");
      });
      ASSERT_TRUE(e.has_value());
      EXPECT_EQ(e->file(), "cut.npz");
      EXPECT_EQ(e->array(), "a") << e->what();
      // The intact array is unaffected whenever the archive opens.
      std::optional<NpzReader> r;
      try {
        r.emplace(NpzReader::from_memory("cut.npz", zip));
      } catch (const Error&) {
      }
      if (r) {
        EXPECT_EQ(r->read("b").count(), 5);
      }
    }
  }
}

TEST(NpzErrorsTruncated, FileOnDiskNamesThePath) {
  TempDir dir;
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    const std::string path = dir.file(std::string("cut-") + label(c) + ".npz");
    for (size_t len : {size_t(0), size_t(5), size_t(21), full.size() / 2, full.size() - 23, full.size() - 1}) {
      SCOPED_TRACE(len);
      fastslow::test::write_bytes(path, Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len)));
      EXPECT_NPZ_ERROR(NpzReader::open(path), path, "", "not a zip/npz file");
    }
    // The untruncated file opens: the path itself is fine.
    fastslow::test::write_bytes(path, full);
    EXPECT_EQ(NpzReader::open(path).read("b").count(), 5);
  }
}

// ===========================================================================
// CRC

TEST(NpzErrorsCrc, StoredDataByteFlipFailsOnReadNamingTheArray) {
  const Bytes full = sample_archive(Compression::Stored);
  const ZipEntry a = entry_of(full, "a.npy");
  const uint64_t header = NpzReader::from_memory("x.npz", full).header("a").header_bytes;
  for (uint64_t k = header; k < a.size; ++k) {
    SCOPED_TRACE(k);
    Bytes bad = full;
    bad[a.data_offset + k] ^= 0x5a;
    const NpzReader r = NpzReader::from_memory("crc.npz", bad);  // headers are intact: opens
    EXPECT_NPZ_ERROR(r.read("a"), "crc.npz", "a", "CRC");
    EXPECT_NPZ_ERROR(r.for_each_chunk("a", 1, [](int64_t, const NpyArray&) {}), "crc.npz", "a", "CRC");
    // Other arrays are untouched.
    EXPECT_EQ(r.read("b").count(), 5);
    EXPECT_EQ(r.read("c").count(), 12);
  }
}

TEST(NpzErrorsCrc, WrongCrcInCentralDirectory) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    Bytes bad = sample_archive(c);
    const size_t at = central_entry_offset(bad, "c.npy");
    set32(bad, at + 16, get32(bad, at + 16) ^ 0x00010000u);
    const NpzReader r = NpzReader::from_memory("crc.npz", bad);
    EXPECT_NPZ_ERROR(r.read("c"), "crc.npz", "c", "CRC-32 mismatch");
    EXPECT_EQ(r.read("a").count(), 12);
  }
}

TEST(NpzErrorsCrc, DeflatedDataByteFlipAlwaysFails) {
  const Bytes full = sample_archive(Compression::Deflate);
  const ZipEntry a = entry_of(full, "a.npy");
  ASSERT_GT(a.compressed_size, 8u);
  int at_read = 0;
  for (uint64_t k = 0; k < a.compressed_size; ++k) {
    SCOPED_TRACE("byte " + std::to_string(k) + " of " + std::to_string(a.compressed_size));
    Bytes bad = full;
    bad[a.data_offset + k] ^= 0xff;
    std::optional<NpzReader> r;
    std::optional<Error> e = error_of([&] { r.emplace(NpzReader::from_memory("crc.npz", bad)); });
    if (!e) {  // the header survived: the damage must show when the data is read
      if (!r) continue;  // non-fastslow exception, already reported
      e = error_of([&] { r->read("a"); });
      ASSERT_TRUE(e.has_value()) << "a corrupt deflate stream read back without error";
      ++at_read;
      EXPECT_TRUE(contains(e->problem(), "CRC") || contains(e->problem(), "deflate") ||
                  contains(e->problem(), "compressed data") || contains(e->problem(), "shorter"))
          << e->what();
      // The untouched arrays still read.
      EXPECT_EQ(r->read("b").count(), 5);
    }
    EXPECT_EQ(e->file(), "crc.npz");
    EXPECT_EQ(e->array(), "a") << e->what();
  }
  EXPECT_GT(at_read, 0);  // most flips land in the data, past the header
}

// ===========================================================================
// Zip structure

TEST(NpzErrorsZip, BadEndOfCentralDirectorySignature) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    Bytes bad = sample_archive(c);
    bad[bad.size() - 22] = 'X';
    EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "not a zip/npz file");
  }
}

TEST(NpzErrorsZip, BadLocalHeaderSignatureNamesTheEntry) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    Bytes bad = sample_archive(c);
    const ZipEntry b = entry_of(bad, "b.npy");
    bad[b.header_offset + 1] = 'Q';
    EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "b.npy", "local header");
  }
}

TEST(NpzErrorsZip, BadCentralDirectorySignature) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    Bytes bad = sample_archive(c);
    bad[central_entry_offset(bad, "c.npy")] = 0;
    EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "central directory entry 2");
  }
}

TEST(NpzErrorsZip, NotAZipAtAll) {
  EXPECT_NPZ_ERROR(NpzReader::from_memory("empty.npz", {}), "empty.npz", "", "not a zip/npz file");
  EXPECT_NPZ_ERROR(NpzReader::from_memory("short.npz", Bytes{'P', 'K', 5, 6}), "short.npz", "", "too short");
  std::mt19937 rng(7);
  for (size_t n : {size_t(22), size_t(100), size_t(4096), size_t(70000)}) {
    Bytes junk(n);
    for (uint8_t& b : junk) b = static_cast<uint8_t>(rng());
    EXPECT_NPZ_ERROR(NpzReader::from_memory("junk.npz", junk), "junk.npz", "", "not a zip/npz file");
  }
  // A bare .npy is not an archive either.
  const std::string h = make_npy_header(DType::U8, {3});
  Bytes npy(h.begin(), h.end());
  append(npy, Bytes{1, 2, 3});
  EXPECT_NPZ_ERROR(NpzReader::from_memory("bare.npy", npy), "bare.npy", "", "not a zip/npz file");
}

TEST(NpzErrorsZip, TextFilesAndNonFilesOnDisk) {
  TempDir dir;
  const std::string text = dir.file("notes.npz");
  const std::string s = "this is a plain text file, not an archive\nsecond line\n";
  fastslow::test::write_bytes(text, Bytes(s.begin(), s.end()));
  EXPECT_NPZ_ERROR(NpzReader::open(text), text, "", "not a zip/npz file");
  const std::string missing = dir.file("missing.npz");
  EXPECT_NPZ_ERROR(NpzReader::open(missing), missing, "", "cannot open");
  // A directory: refused by open() or by the regular-file check, depending
  // on the platform's filesystem layer (node's under Emscripten).
  const std::optional<Error> e = error_of([&] { NpzReader::open(dir.path()); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->file(), dir.path());
  EXPECT_TRUE(contains(e->problem(), "not a regular file") || contains(e->problem(), "cannot open")) << e->what();
}

TEST(NpzErrorsZip, UnsupportedMethodAndEncryption) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    Bytes bzip = sample_archive(c);
    set16(bzip, central_entry_offset(bzip, "a.npy") + 10, 12);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bzip), "m.npz", "a.npy", "compression method 12");
    Bytes enc = sample_archive(c);
    set16(enc, central_entry_offset(enc, "b.npy") + 8, 1);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", enc), "m.npz", "b.npy", "encrypted");
  }
}

TEST(NpzErrorsZip, DirectoryFieldsPointingOutsideTheFile) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    const size_t end = full.size() - 22;
    {
      Bytes bad = full;
      set32(bad, end + 16, 0x7fffffff);  // central directory offset
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "outside the file");
    }
    {
      Bytes bad = full;
      set32(bad, end + 12, 0xfffffff0u);  // central directory size
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "outside the file");
    }
    {
      Bytes bad = full;
      set16(bad, end + 8, 0xfffe);  // entries on this disk
      set16(bad, end + 10, 0xfffe);  // entries in total
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "shorter than its entry count");
    }
    {
      Bytes bad = full;
      set16(bad, end + 4, 1);  // disk number
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "", "multi-disk");
    }
    {
      Bytes bad = full;
      set32(bad, central_entry_offset(bad, "b.npy") + 42, 0x40000000);  // local header offset
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "b.npy", "outside the file");
    }
    {
      Bytes bad = full;  // compressed size runs into the central directory
      const size_t at = central_entry_offset(bad, "c.npy");
      set32(bad, at + 20, get32(bad, at + 20) + 1000);
      if (c == Compression::Stored) set32(bad, at + 24, get32(bad, at + 24) + 1000);
      EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "c.npy", "runs past");
    }
    {
      Bytes bad = full;  // stored sizes that disagree
      const size_t at = central_entry_offset(bad, "a.npy");
      set32(bad, at + 24, get32(bad, at + 24) + 1);
      if (c == Compression::Stored) {
        EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "a.npy", "differing sizes");
      } else {
        // Deflated: the entry now claims one byte more than the .npy holds.
        EXPECT_NPZ_ERROR(NpzReader::from_memory("m.npz", bad), "m.npz", "a", "entry holds 49");
      }
    }
  }
}

TEST(NpzErrorsZip, DeflatedEntryClaimingHugeSizeDoesNotAllocate) {
  const Bytes full = sample_archive(Compression::Deflate);
  const ZipEntry a = entry_of(full, "a.npy");
  const size_t at = central_entry_offset(full, "a.npy");
  {
    Bytes bad = full;  // 32-bit size field: ~4 GB from ~100 compressed bytes
    set32(bad, at + 24, 0xfffffff0u);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", bad), "big.npz", "a.npy", "compression ratio");
  }
  {
    Bytes bad = full;  // 0xffffffff announces a zip64 extra field that is not there
    set32(bad, at + 24, 0xffffffffu);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", bad), "big.npz", "a.npy", "zip64 extra field missing");
  }
  {
    Bytes bad = full;  // a few bytes more than the stream holds: caught by the header check
    set32(bad, at + 24, static_cast<uint32_t>(a.size + 4000));
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", bad), "big.npz", "a",
                     "entry holds " + std::to_string(a.size + 4000 - 128));
  }
  const Bytes data(full.begin() + static_cast<std::ptrdiff_t>(a.data_offset),
                   full.begin() + static_cast<std::ptrdiff_t>(a.data_offset + a.compressed_size));
  for (uint64_t claim : {uint64_t(1) << 62, ~uint64_t(0), uint64_t(1) << 40}) {
    SCOPED_TRACE(claim);
    RawEntry e{"a.npy", data, 8, claim, a.crc32, true};  // zip64 extra in the central directory
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", build_zip({e})), "big.npz", "a.npy", "compression ratio");
  }
  {
    // A deflate stream that really does expand ~1000:1 claims a size the
    // ratio allows; it must still fail cleanly (the header check), not by
    // allocating the claimed size.
    RawEntry e{"a.npy", data, 8, a.compressed_size * 1000, a.crc32, true};
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", build_zip({e})), "big.npz", "a", "header shape needs");
  }
  {
    // The zip64 extra field is shorter than the fields it must hold.
    Bytes bad = build_zip({RawEntry{"a.npy", data, 8, a.size, a.crc32, true}});
    const size_t cd = get32(bad, bad.size() - 22 + 16);
    const size_t extra = cd + 46 + 5;  // after "a.npy"
    set16(bad, extra + 2, 4);          // claims 4 bytes of fields (the reader needs 16)
    EXPECT_NPZ_ERROR(NpzReader::from_memory("big.npz", bad), "big.npz", "a.npy", "too short");
  }
}

TEST(NpzErrorsZip, Zip64EndRecordClaimsAbsurdEntryCount) {
  const Bytes npy = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3});
  // 401016175515425036 * 46 wraps around 2^64 to 40: an unchecked product
  // would pass the "directory large enough" test and reserve ~10^17 entries.
  for (uint64_t n : {uint64_t(401016175515425036ULL), uint64_t(1) << 40, ~uint64_t(0), uint64_t(2)}) {
    SCOPED_TRACE(n);
    const Bytes zip = build_zip({RawEntry{"x.npy", npy}}, ZipOptions{true, n});
    EXPECT_NPZ_ERROR(NpzReader::from_memory("z64.npz", zip), "z64.npz", "", "central directory");
  }
  {
    Bytes zip = build_zip({RawEntry{"x.npy", npy}}, ZipOptions{true, std::nullopt});
    zip[zip.size() - 22 - 20 - 56] = 0;  // zip64 end record signature
    EXPECT_NPZ_ERROR(NpzReader::from_memory("z64.npz", zip), "z64.npz", "", "zip64 end record");
  }
  {
    Bytes zip = build_zip({RawEntry{"x.npy", npy}}, ZipOptions{true, std::nullopt});
    zip[zip.size() - 22 - 20] = 0;  // locator signature: the end record says zip64 but there is none
    EXPECT_NPZ_ERROR(NpzReader::from_memory("z64.npz", zip), "z64.npz", "", "zip64 end record missing");
  }
}

// ===========================================================================
// The .npy member

TEST(NpzErrorsNpy, BadMagicInsideAnEntry) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    const ZipEntry b = entry_of(full, "b.npy");
    Bytes npy = npy_bytes(dict_for("<i8", "(5,)"), Bytes(40, 0));
    npy[1] = 'X';  // "\x93XUMPY"
    EXPECT_NPZ_ERROR(NpzReader::from_memory("mg.npz", one_entry_zip("b", npy, c)), "mg.npz", "b", "bad magic");
    if (c == Compression::Stored) {
      Bytes bad = full;
      bad[b.data_offset] = 0x94;
      EXPECT_NPZ_ERROR(NpzReader::from_memory("mg.npz", bad), "mg.npz", "b", "bad magic");
    }
  }
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    // Entries shorter than the fixed prefix.
    for (size_t n : {size_t(0), size_t(1), size_t(6), size_t(9)}) {
      const Bytes npy = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3});
      EXPECT_NPZ_ERROR(
          NpzReader::from_memory("mg.npz", one_entry_zip("t", Bytes(npy.begin(), npy.begin() + n), c)), "mg.npz",
          "t", ".npy");
    }
    // Something that is not .npy at all.
    const std::string text = "hello, world: not an array";
    EXPECT_NPZ_ERROR(NpzReader::from_memory("mg.npz", one_entry_zip("t", Bytes(text.begin(), text.end()), c)),
                     "mg.npz", "t", "bad magic");
  }
}

TEST(NpzErrorsNpy, UnsupportedFormatVersion) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    for (int major : {0, 4, 255}) {
      SCOPED_TRACE(std::string(label(c)) + " version " + std::to_string(major));
      Bytes bad = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3}, major == 0 ? 1 : 2);
      bad[6] = static_cast<uint8_t>(major);
      EXPECT_NPZ_ERROR(NpzReader::from_memory("v.npz", one_entry_zip("arr", bad, c)), "v.npz", "arr",
                       "unsupported .npy format version " + std::to_string(major));
    }
  }
}

TEST(NpzErrorsNpy, HeaderLengthBeyondTheEntryOrImplausible) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    {
      Bytes bad = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3});
      set16(bad, 8, 0xffff);  // v1 header length 0xffff in a 67-byte entry
      EXPECT_NPZ_ERROR(NpzReader::from_memory("h.npz", one_entry_zip("arr", bad, c)), "h.npz", "arr",
                       "truncated .npy header");
    }
    {
      Bytes bad = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3}, 2);
      set32(bad, 8, 0xfffffff0u);  // v2: ~4 GB of header
      EXPECT_NPZ_ERROR(NpzReader::from_memory("h.npz", one_entry_zip("arr", bad, c)), "h.npz", "arr",
                       "implausible");
    }
    {
      Bytes bad = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3}, 3);
      set32(bad, 8, 0x00200000u);  // 2 MB: over the cap, still not allocated
      EXPECT_NPZ_ERROR(NpzReader::from_memory("h.npz", one_entry_zip("arr", bad, c)), "h.npz", "arr",
                       "implausible");
    }
  }
}

TEST(NpzErrorsNpy, HeaderShorterThanThePrefixAlreadyRead) {
  // v1 with a header length of 0 or 1: the whole header (10 or 11 bytes) is
  // shorter than the 12 prefix bytes the reader fetches first; found by
  // fuzzing as a heap overflow.
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    for (uint16_t len : {0, 1}) {
      SCOPED_TRACE(std::string(label(c)) + " header length " + std::to_string(len));
      Bytes bad = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3});
      set16(bad, 8, len);
      EXPECT_NPZ_ERROR(NpzReader::from_memory("h.npz", one_entry_zip("arr", bad, c)), "h.npz", "arr",
                       "malformed .npy header");
    }
  }
}

TEST(NpzErrorsNpy, MalformedHeaderDict) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "expected '{'"},
      {"not a dict", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False}", "lacks"},
      {"{'descr': '<f4', 'shape': (3,)}", "lacks"},
      {"{'fortran_order': False, 'shape': (3,)}", "lacks"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, x)}", "non-integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", "non-integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3.5,)}", "shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", "expected '('"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr: '<f4', 'fortran_order': False, 'shape': (3,)}", "header"},
      {"{descr: '<f4'}", "quoted string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,", "shape"},
  };
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    for (const auto& [dict, words] : cases) {
      SCOPED_TRACE(std::string(label(c)) + ": " + dict);
      const Bytes zip = one_entry_zip("arr", npy_bytes(dict, Bytes(12, 0)), c);
      EXPECT_NPZ_ERROR(NpzReader::from_memory("d.npz", zip), "d.npz", "arr", "malformed .npy header", words);
    }
  }
}

// A flipped bit can leave a header's key or dtype, or an entry's name, with
// bytes that are not text; the message quotes them as \xNN, so that it is
// valid UTF-8 (the page's JSON) and safe on a terminal. Text stays as is.
TEST(NpzErrorsNpy, BytesThatAreNotTextAreEscapedInTheMessage) {
  const auto what_of = [](const Bytes& zip, const std::string& file) {
    const std::optional<Error> e = error_of([&] { (void)NpzReader::from_memory(file, zip); });
    return e ? std::string(e->what()) : std::string("(no error)");
  };
  const std::string key = "{'descr': '<f4', 'fortr\xe1n_order': False, 'shape': (3,), }";
  EXPECT_EQ(what_of(one_entry_zip("arr", npy_bytes(key, Bytes(12, 0))), "k.npz"),
            "k.npz: array 'arr': malformed .npy header: unexpected key 'fortr\\xe1n_order' in header");
  EXPECT_EQ(what_of(one_entry_zip("arr", npy_bytes(dict_for("<f\x01\x1b", "(3,)"), Bytes(12, 0))), "d.npz"),
            "d.npz: array 'arr': unsupported dtype '<f\\x01\\x1b' (supported: bool, int8-64, uint8-64, float16/32/64)");
  // Truncated, overlong and surrogate sequences are not UTF-8; a whole one is.
  EXPECT_EQ(what_of(one_entry_zip("arr", npy_bytes(dict_for("\xc3\xa9\xe2\x82\xc0\xaf\xed\xa0\x80\xff", "(3,)"),
                                                   Bytes(12, 0))), "caf\xc3\xa9.npz"),
            "caf\xc3\xa9.npz: array 'arr': unsupported dtype '\xc3\xa9\\xe2\\x82\\xc0\\xaf\\xed\\xa0\\x80\\xff' "
            "(supported: bool, int8-64, uint8-64, float16/32/64)");
  // An entry's name, from the directory.
  Bytes bad = one_entry_zip("n\xf5", npy_bytes(dict_for("<f4", "(3,)"), Bytes(12, 0)));
  bad[entry_of(bad, "n\xf5.npy").header_offset] = 'Q';
  EXPECT_EQ(what_of(bad, "n.npz"), "n.npz: array 'n\\xf5.npy': corrupt local header");
  // The parts keep the bytes as they were.
  const Error e("f.npz", "a\x80", "bad \x7f");
  EXPECT_STREQ(e.what(), "f.npz: array 'a\\x80': bad \\x7f");
  EXPECT_EQ(e.array(), "a\x80");
  EXPECT_EQ(Error("tab\tand\nnewline").what(), std::string("tab\tand\nnewline"));
}

TEST(NpzErrorsNpy, UnknownDtypesAreNamed) {
  for (const std::string descr : {"<c8", "<c16", "|O", "<U10", "|S5", "|V8", "<M8[ns]", "<m8[s]", "<f16", "<i3",
                                  "<q8", "f4", "<f4 ", "", ">b1x", "|f4"}) {
    for (Compression c : {Compression::Stored, Compression::Deflate}) {
      SCOPED_TRACE(std::string(label(c)) + ": " + descr);
      const Bytes zip = one_entry_zip("weird", npy_bytes(dict_for(descr, "(2,)"), Bytes(16, 0)), c);
      EXPECT_NPZ_ERROR(NpzReader::from_memory("dt.npz", zip), "dt.npz", "weird",
                       "unsupported dtype '" + descr + "'");
    }
  }
}

TEST(NpzErrorsNpy, StructuredDtypeRejected) {
  const std::string dict = "{'descr': [('x', '<f4'), ('y', '<i4')], 'fortran_order': False, 'shape': (2,), }";
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes zip = one_entry_zip("rec", npy_bytes(dict, Bytes(16, 0)), c);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("dt.npz", zip), "dt.npz", "rec", "structured");
  }
}

TEST(NpzErrorsNpy, UnknownDtypeInAWriterArchiveNamesItsArray) {
  // Patch '<f4' to '<c8' inside a valid stored archive: same length, so only
  // the dtype (and the CRC, which open does not check) changes.
  Bytes bad = sample_archive(Compression::Stored);
  const ZipEntry a = entry_of(bad, "a.npy");
  const std::string hay(bad.begin() + static_cast<std::ptrdiff_t>(a.data_offset),
                        bad.begin() + static_cast<std::ptrdiff_t>(a.data_offset + 128));
  const size_t at = hay.find("'<f4'");
  ASSERT_NE(at, std::string::npos);
  bad[a.data_offset + at + 2] = 'c';
  bad[a.data_offset + at + 3] = '8';
  EXPECT_NPZ_ERROR(NpzReader::from_memory("dt.npz", bad), "dt.npz", "a", "unsupported dtype '<c8'");
}

TEST(NpzErrorsNpy, ShapeClaimingMoreBytesThanTheEntryHoldsFailsAtOpenWithoutAllocating) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    // 10^9 x 1000 float32 = 4 TB claimed, 16 bytes present. Allocating first
    // would abort the test (OOM, or ASan's allocation-size check).
    const Bytes npy = npy_bytes(dict_for("<f4", "(1000000000, 1000)"), Bytes(16, 0));
    EXPECT_NPZ_ERROR(NpzReader::from_memory("hs.npz", one_entry_zip("huge", npy, c)), "hs.npz", "huge",
                     "header shape needs 4000000000000 bytes", "entry holds 16");
    // Fewer bytes than held: also an error, naming both numbers.
    const Bytes small = one_entry_zip("small", npy_bytes(dict_for("<f4", "(3,)"), Bytes(16, 0)), c);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("hs.npz", small), "hs.npz", "small", "needs 12 bytes", "holds 16");
    // A 0-d array needs exactly one element.
    const Bytes scalar = one_entry_zip("s", npy_bytes(dict_for("<f8", "()"), Bytes(4, 0)), c);
    EXPECT_NPZ_ERROR(NpzReader::from_memory("hs.npz", scalar), "hs.npz", "s", "needs 8 bytes", "holds 4");
  }
  // A writer archive whose central directory claims 64 more bytes than the
  // deflated member holds.
  NpzWriter w(Compression::Deflate);
  w.add("huge", std::vector<uint8_t>(16, 0), {16});
  Bytes deflated = w.close_to_memory();
  const size_t at = central_entry_offset(deflated, "huge.npy");
  set32(deflated, at + 24, get32(deflated, at + 24) + 64);
  EXPECT_NPZ_ERROR(NpzReader::from_memory("hs.npz", deflated), "hs.npz", "huge", "header shape needs 16 bytes",
                   "entry holds 80");
}

TEST(NpzErrorsNpy, ShapeProductOverflow) {
  for (const std::string shape : {"(4294967296, 4294967296, 4294967296)", "(9223372036854775807,)",
                                  "(99999999999999999999999,)", "(2147483648, 2147483648, 4)",
                                  "(2, 461168601842738790)"}) {
    SCOPED_TRACE(shape);
    const Bytes zip = one_entry_zip("ov", npy_bytes(dict_for("<i8", shape), Bytes(8, 0)));
    EXPECT_NPZ_ERROR(NpzReader::from_memory("ov.npz", zip), "ov.npz", "ov", "too large");
  }
}

TEST(NpzErrorsNpy, EmptyArraysWithHugeTrailingDimsDoNotAllocate) {
  // No elements, so no data bytes and a consistent header, but the trailing
  // dims multiply to ~2^56: nothing may be sized by them.
  for (bool fortran : {false, true}) {
    SCOPED_TRACE(fortran ? "fortran order" : "C order");
    const Bytes zip = one_entry_zip("e", npy_bytes(dict_for("|u1", "(0, 268435456, 268435456)", fortran), {}));
    const NpzReader r = NpzReader::from_memory("e.npz", zip);
    std::string what;
    const std::optional<Error> e = error_of([&] {
      const NpyArray a = r.read("e");
      EXPECT_EQ(a.count(), 0);
      EXPECT_EQ(a.nbytes(), 0u);
      EXPECT_EQ(r.read_rows("e", 0, 0).count(), 0);
      EXPECT_EQ(r.read_rows("e", std::vector<int64_t>{}).count(), 0);
      int calls = 0;
      r.for_each_chunk("e", 4, [&](int64_t, const NpyArray&) { ++calls; });
      EXPECT_EQ(calls, 0);
    });
    EXPECT_FALSE(e.has_value()) << e->what();
  }
}

// ===========================================================================
// Access errors

TEST(NpzErrorsAccess, MissingArrayIsNamed) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const NpzReader r = NpzReader::from_memory("acc.npz", sample_archive(c));
    EXPECT_FALSE(r.contains("node_feat"));
    EXPECT_NPZ_ERROR(r.read("node_feat"), "acc.npz", "node_feat", "no such array");
    EXPECT_NPZ_ERROR(r.header("node_feat"), "acc.npz", "node_feat", "no such array");
    EXPECT_NPZ_ERROR(r.compressed("node_feat"), "acc.npz", "node_feat", "no such array");
    EXPECT_NPZ_ERROR(r.read_rows("node_feat", 0, 1), "acc.npz", "node_feat", "no such array");
    EXPECT_NPZ_ERROR(r.read_rows("node_feat", std::vector<int64_t>{0}), "acc.npz", "node_feat", "no such array");
    EXPECT_NPZ_ERROR(r.for_each_chunk("node_feat", 1, [](int64_t, const NpyArray&) {}), "acc.npz", "node_feat",
                     "no such array");
    // The zip member name is not the array name.
    EXPECT_NPZ_ERROR(r.read("a.npy"), "acc.npz", "a.npy", "no such array");
  }
}

TEST(NpzErrorsAccess, ReadRowsOutOfRange) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const NpzReader r = NpzReader::from_memory("acc.npz", sample_archive(c));
    EXPECT_NPZ_ERROR(r.read_rows("a", 0, 4), "acc.npz", "a", "out of range", "3 rows");
    EXPECT_NPZ_ERROR(r.read_rows("a", -1, 2), "acc.npz", "a", "out of range");
    EXPECT_NPZ_ERROR(r.read_rows("a", 2, 1), "acc.npz", "a", "out of range");
    EXPECT_NPZ_ERROR(r.read_rows("a", INT64_MIN, INT64_MAX), "acc.npz", "a", "out of range");
    EXPECT_NPZ_ERROR(r.read_rows("b", std::vector<int64_t>{0, 5}), "acc.npz", "b", "row 5 out of range", "5 rows");
    EXPECT_NPZ_ERROR(r.read_rows("b", std::vector<int64_t>{-1}), "acc.npz", "b", "row -1");
    EXPECT_NPZ_ERROR(r.read_rows("c", std::vector<int64_t>{INT64_MAX}), "acc.npz", "c", "out of range");
    EXPECT_NPZ_ERROR(r.read_rows("s", 0, 1), "acc.npz", "s", "0-d");
    EXPECT_NPZ_ERROR(r.read_rows("s", std::vector<int64_t>{0}), "acc.npz", "s", "0-d");
    EXPECT_NPZ_ERROR(r.for_each_chunk("s", 1, [](int64_t, const NpyArray&) {}), "acc.npz", "s", "0-d");
    // In range still works after the failures.
    EXPECT_EQ(r.read_rows("a", 1, 3).dim(0), 2);
  }
}

TEST(NpzErrorsAccess, DuplicateArrayInArchive) {
  const Bytes npy = npy_bytes(dict_for("|u1", "(3,)"), Bytes{1, 2, 3});
  const Bytes zip = build_zip({RawEntry{"x.npy", npy}, RawEntry{"x.npy", npy}});
  EXPECT_NPZ_ERROR(NpzReader::from_memory("dup.npz", zip), "dup.npz", "x", "twice");
}

TEST(NpzErrorsAccess, TypedAccessToTheWrongDtype) {
  const NpzReader r = NpzReader::from_memory("acc.npz", sample_archive(Compression::Stored));
  const NpyArray a = r.read("a");
  const std::optional<Error> e = error_of([&] { a.as<double>(); });
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(contains(e->problem(), "float32")) << e->what();
  EXPECT_TRUE(contains(e->problem(), "float64")) << e->what();
}

// ===========================================================================
// Fuzz-ish: random single-byte mutations either read fine or fail with a
// fastslow::Error; never another exception, never a crash (run under ASan).

namespace {

void mutate_and_check(const Bytes& full, uint32_t seed, int rounds) {
  std::mt19937 rng(seed);
  int ok = 0, errors = 0;
  for (int i = 0; i < rounds; ++i) {
    Bytes bad = full;
    const size_t at = static_cast<size_t>(rng() % bad.size());
    bad[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    std::string what;
    const Outcome o = outcome_of(bad, &what);
    if (o == Outcome::Other) {
      ADD_FAILURE() << "mutation " << i << " at byte " << at << ": " << what;
    } else if (o == Outcome::Ok) {
      ++ok;
    } else {
      ++errors;
      EXPECT_TRUE(contains(what, "fuzz.npz")) << what;
    }
  }
  EXPECT_GT(errors, 0);
  ::testing::Test::RecordProperty("ok", ok);
  ::testing::Test::RecordProperty("errors", errors);
}

}  // namespace

TEST(NpzErrorsFuzz, RandomByteMutationsOfStoredArchive) {
  mutate_and_check(sample_archive(Compression::Stored), 1234, 2000);
}

TEST(NpzErrorsFuzz, RandomByteMutationsOfDeflatedArchive) {
  mutate_and_check(sample_archive(Compression::Deflate), 5678, 2000);
}

TEST(NpzErrorsFuzz, RandomByteMutationsOfZip64Archive) {
  const Bytes full = sample_archive(Compression::Deflate);
  std::vector<RawEntry> entries;
  for (const std::string name : {"a.npy", "b.npy", "c.npy", "s.npy"}) {
    const ZipEntry e = entry_of(full, name);
    entries.push_back(RawEntry{name,
                               Bytes(full.begin() + static_cast<std::ptrdiff_t>(e.data_offset),
                                     full.begin() + static_cast<std::ptrdiff_t>(e.data_offset + e.compressed_size)),
                               8, e.size, e.crc32, true});
  }
  const Bytes zip = build_zip(entries, ZipOptions{true, std::nullopt});
  std::string what;
  ASSERT_EQ(outcome_of(zip, &what), Outcome::Ok) << what;
  mutate_and_check(zip, 91011, 2000);
}

TEST(NpzErrorsFuzz, RandomMultiByteDamageAndTruncation) {
  std::mt19937 rng(4242);
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    SCOPED_TRACE(label(c));
    const Bytes full = sample_archive(c);
    for (int i = 0; i < 500; ++i) {
      Bytes bad = full;
      const int hits = 2 + static_cast<int>(rng() % 6);
      for (int h = 0; h < hits; ++h) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
      if (rng() % 4 == 0) bad.resize(rng() % bad.size());
      std::string what;
      EXPECT_NE(outcome_of(bad, &what), Outcome::Other) << "case " << i << ": " << what;
    }
  }
}

// ===========================================================================
// numpy as the source of real-world files (native only).

TEST(NpzErrorsNumpy, BigEndianAndFortranArraysReadCorrectly) {
  if (!fastslow::test::numpy_available()) GTEST_SKIP() << "numpy not available";
  TempDir dir;
  const std::string plain = dir.file("np.npz"), packed = dir.file("npc.npz");
  const std::string script =
      "import numpy as np\n"
      "be = (np.arange(12).reshape(3, 4) * 1000 - 5).astype('>i4')\n"
      "bf = np.array([1.5, -2.25, 65504.0, 0.0], dtype='>f2')\n"
      "bd = np.array([[1e300, -0.5], [3.25, 7.0]], dtype='>f8')\n"
      "fo = np.asfortranarray((np.arange(24).reshape(2, 3, 4) / 8.0).astype('<f4'))\n"
      "fb = np.asfortranarray(np.arange(6, dtype='>i8').reshape(2, 3) - 3)\n"
      "assert fo.flags.f_contiguous and not fo.flags.c_contiguous\n"
      "np.savez('" + plain + "', be=be, bf=bf, bd=bd, fo=fo, fb=fb)\n"
      "np.savez_compressed('" + packed + "', be=be, bf=bf, bd=bd, fo=fo, fb=fb)\n";
  ASSERT_EQ(fastslow::test::run_python(script), 0);
  for (const std::string& path : {plain, packed}) {
    SCOPED_TRACE(path);
    const NpzReader r = NpzReader::open(path);
    EXPECT_TRUE(r.header("be").big_endian);
    EXPECT_TRUE(r.header("fo").fortran_order);
    const NpyArray be = r.read("be");
    ASSERT_EQ(be.dtype(), DType::I32);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(be.as<int32_t>()[i], i * 1000 - 5);
    const std::vector<float> bf = r.read("bf").to_float();
    EXPECT_EQ(bf, (std::vector<float>{1.5f, -2.25f, 65504.0f, 0.0f}));
    const NpyArray bd = r.read("bd");
    EXPECT_EQ(std::vector<double>(bd.as<double>(), bd.as<double>() + 4), (std::vector<double>{1e300, -0.5, 3.25, 7.0}));
    const NpyArray fo = r.read("fo");
    ASSERT_EQ(fo.shape(), (std::vector<int64_t>{2, 3, 4}));
    for (int i = 0; i < 24; ++i) EXPECT_EQ(fo.as<float>()[i], static_cast<float>(i) / 8.0f) << i;
    const NpyArray fo1 = r.read_rows("fo", std::vector<int64_t>{1, 1, 0});
    for (int i = 0; i < 12; ++i) {
      EXPECT_EQ(fo1.as<float>()[i], static_cast<float>(12 + i) / 8.0f);
      EXPECT_EQ(fo1.as<float>()[24 + i], static_cast<float>(i) / 8.0f);
    }
    const NpyArray fb = r.read("fb");
    for (int i = 0; i < 6; ++i) EXPECT_EQ(fb.as<int64_t>()[i], i - 3);
    const NpyArray be_rows = r.read_rows("be", 1, 3);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(be_rows.as<int32_t>()[i], (i + 4) * 1000 - 5);
  }
}

TEST(NpzErrorsNumpy, ObjectAndOtherUnsupportedArraysAreRejectedClearly) {
  if (!fastslow::test::numpy_available()) GTEST_SKIP() << "numpy not available";
  TempDir dir;
  const std::string obj = dir.file("obj.npz"), str = dir.file("str.npz"), cpx = dir.file("cpx.npz");
  const std::string script =
      "import numpy as np\n"
      "o = np.empty(3, dtype=object)\n"
      "o[0] = {'a': 1}; o[1] = None; o[2] = 'x'\n"
      "np.savez('" + obj + "', ok=np.arange(3), obj=o)\n"
      "np.savez_compressed('" + str + "', names=np.array(['conv', 'relu']))\n"
      "np.savez('" + cpx + "', z=np.array([1+2j], dtype='<c16'))\n";
  ASSERT_EQ(fastslow::test::run_python(script), 0);
  EXPECT_NPZ_ERROR(NpzReader::open(obj), obj, "obj", "unsupported dtype '|O'");
  EXPECT_NPZ_ERROR(NpzReader::open(str), str, "names", "unsupported dtype '<U4'");
  EXPECT_NPZ_ERROR(NpzReader::open(cpx), cpx, "z", "unsupported dtype '<c16'");
}

TEST(NpzErrorsNumpy, NumpyAgreesThatOurCorruptionsAreCorrupt) {
  // Cross-check: numpy (through zipfile) also refuses a flipped stored data
  // byte and a truncated archive, so the errors above are not false alarms.
  if (!fastslow::test::numpy_available()) GTEST_SKIP() << "numpy not available";
  TempDir dir;
  const Bytes full = sample_archive(Compression::Stored);
  const ZipEntry a = entry_of(full, "a.npy");
  Bytes crc = full;
  crc[a.data_offset + a.size - 1] ^= 0x5a;
  const std::string good = dir.file("good.npz"), bad = dir.file("crc.npz"), cut = dir.file("cut.npz");
  fastslow::test::write_bytes(good, full);
  fastslow::test::write_bytes(bad, crc);
  fastslow::test::write_bytes(cut, Bytes(full.begin(), full.end() - 30));
  const std::string script =
      "import numpy as np, sys\n"
      "z = np.load('" + good + "')\n"
      "assert z['a'].shape == (3, 4) and z['b'][2] == 1 << 40\n"
      "def fails(path, key):\n"
      "    try:\n"
      "        np.load(path)[key]\n"
      "    except Exception:\n"
      "        return True\n"
      "    return False\n"
      "assert fails('" + bad + "', 'a')\n"
      "assert fails('" + cut + "', 'a')\n";
  ASSERT_EQ(fastslow::test::run_python(script), 0);
  EXPECT_NPZ_ERROR(NpzReader::open(bad).read("a"), bad, "a", "CRC");
  EXPECT_NPZ_ERROR(NpzReader::open(cut), cut, "", "not a zip/npz file");
}
