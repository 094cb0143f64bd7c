// Element types of .npy arrays, as numpy names them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fastslow {

enum class DType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64 };

size_t dtype_size(DType t);
const char* dtype_name(DType t);     // numpy's name: "float32", "uint8", "bool"
std::string dtype_descr(DType t);    // little-endian descr as numpy writes it: "<f4", "|u1"
bool dtype_is_float(DType t);

// Parses a numpy type descriptor such as "<f4", "|b1", ">i8".
// Returns false for anything that is not one of the supported scalar types.
bool parse_dtype_descr(std::string_view descr, DType* type, bool* big_endian);

float half_to_float(uint16_t h);

// Maps C++ element types to their DType, for typed access.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::I8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::I16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::I32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::I64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::U16; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::U64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::F32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::F64; };

}  // namespace fastslow
