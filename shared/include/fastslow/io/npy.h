// .npy arrays: the header format (versions 1-3) and an owning n-d array.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastslow/io/dtype.h"

namespace fastslow {

struct NpyHeader {
  DType dtype = DType::U8;
  bool big_endian = false;
  // Only ever true for rank >= 2; rank 0/1 arrays are the same bytes either way.
  bool fortran_order = false;
  std::vector<int64_t> shape;
  uint64_t header_bytes = 0;  // magic + header, i.e. where the data starts

  int64_t count() const;       // number of elements
  int64_t rows() const;        // leading axis (1 for a 0-d array)
  uint64_t row_bytes() const;  // bytes per leading-axis row
  uint64_t data_bytes() const;
};

// Bytes of the fixed prefix: magic, version, header length.
constexpr size_t kNpyPrefixMax = 12;

// Returns how many bytes the whole header takes, from its first kNpyPrefixMax
// bytes (fewer for a truncated entry: then it throws). `file` and `array`
// only label errors.
uint64_t npy_header_length(const uint8_t* prefix, size_t avail, const std::string& file,
                           const std::string& array);

// Parses a complete header (npy_header_length bytes). Throws fastslow::Error on
// anything malformed or unsupported (object or structured dtypes, overflowing
// shapes).
NpyHeader parse_npy_header(const uint8_t* data, size_t size, const std::string& file,
                           const std::string& array);

// A complete header for a C-order little-endian array, padded so that the
// data starts on a 64-byte boundary as numpy does.
std::string make_npy_header(DType dtype, const std::vector<int64_t>& shape);

// Owning, C-order, native little-endian n-d array. The buffer is left
// uninitialised on construction because every reader overwrites it whole.
class NpyArray {
 public:
  NpyArray() = default;
  NpyArray(DType dtype, std::vector<int64_t> shape);

  template <class T>
  static NpyArray from(const std::vector<T>& values, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_.at(i); }
  int64_t count() const;
  size_t nbytes() const { return nbytes_; }

  uint8_t* data() { return buf_.get(); }
  const uint8_t* data() const { return buf_.get(); }

  // Typed views; throw if T is not the stored type.
  template <class T>
  T* as();
  template <class T>
  const T* as() const;

  // Converting copies. Integer targets reject floats with fractions and values
  // out of range; float targets accept every numeric type. `what` labels errors.
  std::vector<float> to_float(const std::string& what = "") const;
  std::vector<double> to_double(const std::string& what = "") const;
  std::vector<int64_t> to_int64(const std::string& what = "") const;
  std::vector<int8_t> to_int8(const std::string& what = "") const;

 private:
  DType dtype_ = DType::U8;
  std::vector<int64_t> shape_;
  size_t nbytes_ = 0;
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> buf_;
};

template <class T>
T* NpyArray::as() {
  return const_cast<T*>(static_cast<const NpyArray*>(this)->as<T>());
}

void check_dtype(DType stored, DType wanted);

template <class T>
const T* NpyArray::as() const {
  check_dtype(dtype_, dtype_of<T>::value);
  return reinterpret_cast<const T*>(buf_.get());
}

template <class T>
NpyArray NpyArray::from(const std::vector<T>& values, std::vector<int64_t> shape) {
  NpyArray a(dtype_of<T>::value, std::move(shape));
  check_dtype(a.dtype(), dtype_of<T>::value);
  if (static_cast<size_t>(a.count()) != values.size()) {
    throw std::invalid_argument("NpyArray::from: shape does not match the number of values");
  }
  if (!values.empty()) std::copy(values.begin(), values.end(), a.as<T>());
  return a;
}

}  // namespace fastslow
