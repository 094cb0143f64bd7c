#include "fastslow/io/dtype.h"

#include <cstring>

namespace fastslow {

namespace {
struct Info {
  DType type;
  char kind;  // numpy kind letter
  uint8_t size;
  const char* name;
};
constexpr Info kInfo[] = {
    {DType::Bool, 'b', 1, "bool"},     {DType::I8, 'i', 1, "int8"},
    {DType::I16, 'i', 2, "int16"},     {DType::I32, 'i', 4, "int32"},
    {DType::I64, 'i', 8, "int64"},     {DType::U8, 'u', 1, "uint8"},
    {DType::U16, 'u', 2, "uint16"},    {DType::U32, 'u', 4, "uint32"},
    {DType::U64, 'u', 8, "uint64"},    {DType::F16, 'f', 2, "float16"},
    {DType::F32, 'f', 4, "float32"},   {DType::F64, 'f', 8, "float64"},
};
const Info& info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

size_t dtype_size(DType t) { return info(t).size; }
const char* dtype_name(DType t) { return info(t).name; }
bool dtype_is_float(DType t) { return info(t).kind == 'f'; }

std::string dtype_descr(DType t) {
  const Info& i = info(t);
  std::string s;
  s += i.size == 1 ? '|' : '<';
  s += i.kind;
  s += static_cast<char>('0' + i.size);
  return s;
}

bool parse_dtype_descr(std::string_view d, DType* type, bool* big_endian) {
  if (d.size() != 3) return false;
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  const char kind = d[1];
  if (d[2] < '1' || d[2] > '8') return false;
  const int size = d[2] - '0';
  for (const Info& i : kInfo) {
    if (i.kind == kind && i.size == size) {
      // '|' (not applicable) is only meaningful for one-byte types; numpy never
      // writes it for wider ones, and we cannot guess the byte order.
      if (order == '|' && size != 1) return false;
      *type = i.type;
      *big_endian = order == '>' && size > 1;
      return true;
    }
  }
  return false;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal half: renormalise into a normal float.
    exp = 113;
    while ((mant & 0x400) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace fastslow
