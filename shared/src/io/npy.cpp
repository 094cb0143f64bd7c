#include "fastslow/io/npy.h"

#include <cctype>
#include <cstdlib>
#include <new>
#include <cmath>
#include <cstring>
#include <limits>

#include "fastslow/error.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

namespace fastslow {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// numpy itself refuses headers over 10k characters by default; real headers
// are ~100 bytes. A cap keeps a corrupt length from allocating gigabytes.
constexpr uint64_t kMaxHeaderLen = 1 << 20;

bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
  *out = a * b;
  return false;
}

// Reads the Python dict literal numpy writes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class DictParser {
 public:
  DictParser(const std::string& text, const std::string& file, const std::string& array)
      : s_(text), file_(file), array_(array) {}

  void parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') fail("dtype is not a simple type (structured dtypes are not supported)");
        *descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        *fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        *shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected key '" + key + "' in header");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_ws();
      if (peek() != '}') fail("expected ',' or '}' in header");
    }
    if (!have_descr || !have_fortran || !have_shape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw Error(file_, array_, "malformed .npy header: " + why);
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skip_ws();
      if (peek() == ')') {
        ++i_;
        return dims;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("shape holds a non-integer");
      uint64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (uint64_t(1) << 62) / 10) fail("shape dimension too large");
        v = v * 10 + static_cast<uint64_t>(peek() - '0');
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2 long suffix in old files
      dims.push_back(static_cast<int64_t>(v));
      skip_ws();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in shape");
      }
    }
  }

  const std::string& s_;
  const std::string& file_;
  const std::string& array_;
  size_t i_ = 0;
};

}  // namespace

int64_t NpyHeader::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
int64_t NpyHeader::rows() const { return shape.empty() ? 1 : shape[0]; }
uint64_t NpyHeader::row_bytes() const {
  uint64_t n = dtype_size(dtype);
  for (size_t i = 1; i < shape.size(); ++i) n *= static_cast<uint64_t>(shape[i]);
  return n;
}
uint64_t NpyHeader::data_bytes() const {
  return static_cast<uint64_t>(count()) * dtype_size(dtype);
}

uint64_t npy_header_length(const uint8_t* p, size_t avail, const std::string& file,
                           const std::string& array) {
  if (avail < 10 || std::memcmp(p, kMagic, kMagicLen) != 0)
    throw Error(file, array, "not a .npy array (bad magic)");
  const int major = p[6];
  uint64_t len;
  size_t prefix;
  if (major == 1) {
    len = p[8] | (uint64_t(p[9]) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (avail < 12) throw Error(file, array, "truncated .npy header");
    len = p[8] | (uint64_t(p[9]) << 8) | (uint64_t(p[10]) << 16) | (uint64_t(p[11]) << 24);
    prefix = 12;
  } else {
    throw Error(file, array, "unsupported .npy format version " + std::to_string(major) + "." +
                                 std::to_string(p[7]));
  }
  if (len > kMaxHeaderLen) throw Error(file, array, ".npy header length " + std::to_string(len) + " is implausible");
  return prefix + len;
}

NpyHeader parse_npy_header(const uint8_t* data, size_t size, const std::string& file,
                           const std::string& array) {
  const uint64_t total = npy_header_length(data, size, file, array);
  if (size < total) throw Error(file, array, "truncated .npy header");
  const size_t prefix = data[6] == 1 ? 10 : 12;
  const std::string text(reinterpret_cast<const char*>(data) + prefix, total - prefix);

  std::string descr;
  bool fortran = false;
  NpyHeader h;
  DictParser(text, file, array).parse(&descr, &fortran, &h.shape);
  if (!parse_dtype_descr(descr, &h.dtype, &h.big_endian))
    throw Error(file, array, "unsupported dtype '" + descr +
                                 "' (supported: bool, int8-64, uint8-64, float16/32/64)");
  h.fortran_order = fortran && h.shape.size() > 1;
  uint64_t bytes = dtype_size(h.dtype);
  for (int64_t d : h.shape) {
    if (mul_overflows(bytes, static_cast<uint64_t>(d), &bytes) || bytes > (uint64_t(1) << 62))
      throw Error(file, array, "shape is too large to address");
  }
  h.header_bytes = total;
  return h;
}

std::string make_npy_header(DType dtype, const std::vector<int64_t>& shape) {
  std::string dict = "{'descr': '" + dtype_descr(dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ",";
  dict += "), }";
  // Version 1 stores the length in 16 bits; switch to 2 only when needed.
  size_t prefix = 10;
  if (dict.size() + 1 + prefix > 65535) prefix = 12;
  const size_t unpadded = prefix + dict.size() + 1;  // +1 for '\n'
  const size_t padded = (unpadded + 63) / 64 * 64;
  dict.append(padded - unpadded, ' ');
  dict += '\n';
  const uint64_t len = dict.size();
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (prefix == 12) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + dict;
}

// ---------------------------------------------------------------------------

namespace {

// Large arrays get 2 MB-aligned memory marked for transparent huge pages:
// filling a fresh 150 MB buffer otherwise costs ~37k page faults, as much
// time as reading it.
uint8_t* allocate_array_buffer(size_t n) {
  if (n == 0) n = 1;
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  constexpr size_t kHuge = size_t(2) << 20;
  if (n >= 2 * kHuge) {
    const size_t rounded = (n + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);
    return static_cast<uint8_t*>(p);
  }
#endif
  void* p = std::malloc(n);
  if (!p) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}

}  // namespace

void NpyArray::Free::operator()(uint8_t* p) const { std::free(p); }

void check_dtype(DType stored, DType wanted) {
  if (stored != wanted)
    throw Error(std::string("array holds ") + dtype_name(stored) + ", accessed as " + dtype_name(wanted));
}

NpyArray::NpyArray(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  uint64_t n = dtype_size(dtype);
  for (int64_t d : shape_) {
    if (d < 0 || mul_overflows(n, static_cast<uint64_t>(d), &n))
      throw Error("array shape is negative or too large");
  }
  nbytes_ = static_cast<size_t>(n);
  buf_.reset(allocate_array_buffer(nbytes_));
}

int64_t NpyArray::count() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

namespace {

template <class Out, class F>
std::vector<Out> convert(const NpyArray& a, F&& each) {
  const int64_t n = a.count();
  std::vector<Out> out(static_cast<size_t>(n));
  const uint8_t* p = a.data();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* src = reinterpret_cast<const T*>(p);
    for (int64_t i = 0; i < n; ++i) out[i] = each(src[i], i);
  };
  switch (a.dtype()) {
    case DType::Bool: run(uint8_t{}); break;
    case DType::I8: run(int8_t{}); break;
    case DType::I16: run(int16_t{}); break;
    case DType::I32: run(int32_t{}); break;
    case DType::I64: run(int64_t{}); break;
    case DType::U8: run(uint8_t{}); break;
    case DType::U16: run(uint16_t{}); break;
    case DType::U32: run(uint32_t{}); break;
    case DType::U64: run(uint64_t{}); break;
    case DType::F16: {
      const uint16_t* src = reinterpret_cast<const uint16_t*>(p);
      for (int64_t i = 0; i < n; ++i) out[i] = each(half_to_float(src[i]), i);
      break;
    }
    case DType::F32: run(float{}); break;
    case DType::F64: run(double{}); break;
  }
  return out;
}

}  // namespace

std::vector<float> NpyArray::to_float(const std::string&) const {
  return convert<float>(*this, [](auto v, int64_t) { return static_cast<float>(v); });
}

std::vector<double> NpyArray::to_double(const std::string&) const {
  return convert<double>(*this, [](auto v, int64_t) { return static_cast<double>(v); });
}

std::vector<int64_t> NpyArray::to_int64(const std::string& what) const {
  return convert<int64_t>(*this, [&](auto v, int64_t i) -> int64_t {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      if (!(std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18))
        throw Error(what + (what.empty() ? "" : ": ") + "element " + std::to_string(i) +
                    " is not an integer");
      return static_cast<int64_t>(v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw Error(what + (what.empty() ? "" : ": ") + "element " + std::to_string(i) +
                    " exceeds int64");
      return static_cast<int64_t>(v);
    } else {
      return static_cast<int64_t>(v);
    }
  });
}

std::vector<int8_t> NpyArray::to_int8(const std::string& what) const {
  return convert<int8_t>(*this, [&](auto v, int64_t i) -> int8_t {
    const double d = static_cast<double>(v);  // unsigned types must not meet -128 as unsigned
    if (!(d >= -128 && d <= 127 && d == std::floor(d)))
      throw Error(what + (what.empty() ? "" : ": ") + "element " + std::to_string(i) + " is not an int8 value");
    return static_cast<int8_t>(v);
  });
}

}  // namespace fastslow
