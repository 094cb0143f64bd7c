#include "fastslow/io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "fastslow/error.h"

using namespace fastslow;

namespace {

NpyHeader parse(const std::string& bytes) {
  return parse_npy_header(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.npz", "a");
}

std::string v1(const std::string& dict) {
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(dict.size() & 0xff);
  s += static_cast<char>(dict.size() >> 8);
  return s + dict;
}

}  // namespace

TEST(NpyHeader, RoundTripsOurOwnHeaders) {
  for (DType t : {DType::Bool, DType::I8, DType::U16, DType::I32, DType::I64, DType::F16, DType::F32, DType::F64}) {
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{}, {0}, {7}, {3, 4}, {2, 3, 5}}) {
      const std::string h = make_npy_header(t, shape);
      EXPECT_EQ(h.size() % 64, 0u);
      EXPECT_EQ(h.back(), '\n');
      const NpyHeader p = parse(h);
      EXPECT_EQ(p.dtype, t);
      EXPECT_EQ(p.shape, shape);
      EXPECT_FALSE(p.big_endian);
      EXPECT_FALSE(p.fortran_order);
      EXPECT_EQ(p.header_bytes, h.size());
    }
  }
}

TEST(NpyHeader, ParsesVersionsOneToThree) {
  const std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (5, 2), }\n";
  for (int major : {2, 3}) {
    std::string s("\x93NUMPY", 6);
    s += static_cast<char>(major);
    s += '\0';
    const uint32_t n = static_cast<uint32_t>(dict.size());
    for (int i = 0; i < 4; ++i) s += static_cast<char>((n >> (8 * i)) & 0xff);
    const NpyHeader h = parse(s + dict);
    EXPECT_EQ(h.dtype, DType::I64);
    EXPECT_EQ(h.shape, (std::vector<int64_t>{5, 2}));
    EXPECT_EQ(h.header_bytes, s.size() + dict.size());
  }
  EXPECT_EQ(parse(v1(dict)).shape, (std::vector<int64_t>{5, 2}));
}

TEST(NpyHeader, AcceptsKeyOrderQuotesAndPython2Longs) {
  const NpyHeader h = parse(v1("{\"shape\": (3L, 4L), \"fortran_order\": True, \"descr\": \">f8\"}\n"));
  EXPECT_EQ(h.dtype, DType::F64);
  EXPECT_TRUE(h.big_endian);
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{3, 4}));
  // Fortran order means nothing for rank 1.
  EXPECT_FALSE(parse(v1("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }\n")).fortran_order);
}

TEST(NpyHeader, RejectsUnsupportedDtypesByName) {
  for (const char* d : {"<c8", "|O", "<U10", "<M8[ns]", "|V4", "<f16"}) {
    try {
      parse(v1(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (3,), }\n"));
      FAIL() << d;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), "f.npz");
      EXPECT_EQ(e.array(), "a");
      EXPECT_NE(e.problem().find(d), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse(v1("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (3,), }\n")), Error);
}

TEST(NpyHeader, RejectsMalformedHeaders) {
  EXPECT_THROW(parse(v1("{'descr': '<f4', 'shape': (3,), }\n")), Error);           // key missing
  EXPECT_THROW(parse(v1("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}")), Error);
  EXPECT_THROW(parse(v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3, x)}")), Error);
  EXPECT_THROW(parse(v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,")), Error);
  EXPECT_THROW(parse(v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}")), Error);
  EXPECT_THROW(parse("\x93NUMPX\x01\x00\x00\x00"), Error);
  EXPECT_THROW(parse(std::string("\x93NUMPY\x04\x00\x00\x00", 10)), Error);
  // Dimensions whose product overflows.
  EXPECT_THROW(parse(v1("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904)}")), Error);
}

TEST(NpyHeader, SwitchesToVersionTwoForHugeHeaders) {
  std::vector<int64_t> shape(25000, 1);  // "1, " x 25000 > 65535 bytes
  const std::string h = make_npy_header(DType::U8, shape);
  EXPECT_EQ(h[6], 2);
  EXPECT_EQ(parse(h).shape.size(), 25000u);
}

TEST(Dtype, ParsesEveryNumpyScalarDescr) {
  struct Case { const char* descr; DType t; bool big; };
  for (const Case& c : {Case{"|b1", DType::Bool, false}, Case{"|i1", DType::I8, false}, Case{"<i2", DType::I16, false},
                        Case{"<i4", DType::I32, false}, Case{"<i8", DType::I64, false}, Case{"|u1", DType::U8, false},
                        Case{"<u2", DType::U16, false}, Case{">u4", DType::U32, true}, Case{"<u8", DType::U64, false},
                        Case{"<f2", DType::F16, false}, Case{"<f4", DType::F32, false}, Case{">f8", DType::F64, true}}) {
    DType t;
    bool big;
    ASSERT_TRUE(parse_dtype_descr(c.descr, &t, &big)) << c.descr;
    EXPECT_EQ(t, c.t);
    EXPECT_EQ(big, c.big);
  }
  DType t;
  bool big;
  EXPECT_FALSE(parse_dtype_descr("|f4", &t, &big));  // byte order required for wide types
  EXPECT_FALSE(parse_dtype_descr("<f3", &t, &big));
}

TEST(Dtype, HalfToFloatMatchesIeee) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
}

TEST(NpyArray, ConvertsBetweenTypes) {
  const NpyArray a = NpyArray::from(std::vector<int32_t>{-3, 0, 7}, {3});
  EXPECT_EQ(a.to_int64(), (std::vector<int64_t>{-3, 0, 7}));
  EXPECT_EQ(a.to_float(), (std::vector<float>{-3.f, 0.f, 7.f}));
  EXPECT_THROW(a.as<float>(), Error);
  const NpyArray f = NpyArray::from(std::vector<double>{1.0, 2.5}, {2});
  EXPECT_THROW(f.to_int64("x"), Error);  // 2.5 is not an integer
  const NpyArray u = NpyArray::from(std::vector<uint64_t>{uint64_t(1) << 63}, {1});
  EXPECT_THROW(u.to_int64(), Error);
  EXPECT_THROW(NpyArray::from(std::vector<float>{1, 2, 3}, {2, 2}), std::invalid_argument);
}

TEST(NpyArray, ToInt8KeepsExactSmallIntegersOnly) {
  EXPECT_EQ(NpyArray::from(std::vector<float>{-128, -1, 0, 5, 127}, {5}).to_int8(),
            (std::vector<int8_t>{-128, -1, 0, 5, 127}));
  EXPECT_EQ(NpyArray::from(std::vector<int64_t>{-1, 6}, {2}).to_int8(), (std::vector<int8_t>{-1, 6}));
  EXPECT_THROW(NpyArray::from(std::vector<float>{0.5f}, {1}).to_int8(), Error);
  EXPECT_THROW(NpyArray::from(std::vector<int64_t>{128}, {1}).to_int8(), Error);
  EXPECT_THROW(NpyArray::from(std::vector<double>{std::nan("")}, {1}).to_int8(), Error);
  // An unsigned value must not wrap into range.
  EXPECT_THROW(NpyArray::from(std::vector<uint64_t>{~uint64_t{0}}, {1}).to_int8(), Error);
  EXPECT_EQ(NpyArray::from(std::vector<uint32_t>{7}, {1}).to_int8(), (std::vector<int8_t>{7}));
}
