#pragma once
// The bf16 conversion loops, written once over the element conversions of
// sim/base/dtype.h and compiled in dtype_runs.cc (portable) and
// dtype_runs_avx2.cc (-mavx2) and dtype_runs_avx512.cc (AVX-512 BF16).
// Internal linkage: each file keeps its own build of them. Branch-free, so
// the portable build vectorises.
#include <cstdint>
#include <cstring>
#if defined(__AVX2__) || defined(__AVX512BF16__)
#include <immintrin.h>
#endif

#include "sim/base/dtype.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {
namespace {

// The element loops, also the tails of the AVX2 ones below: a loop of its
// own from 0, so that a short run (a [P, 1] tile) costs what it did before
// the AVX2 bodies.
inline void Bf16LoadElements(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    out[i] = BF16ToFloat(h);
  }
}
inline void Bf16StoreElements(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = FloatToBF16(in[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

inline void Bf16LoadLoop(const uint8_t* p, int64_t n, float* out) {
  int64_t i = 0;
#if defined(__AVX512BF16__)
  // 16 values at a time: each widened to 32 bits and shifted up (BF16ToFloat).
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * i));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
#elif defined(__AVX2__)
  if (n < 16) return Bf16LoadElements(p, n, out);  // before any vector setup
  // 16 bf16 values at a time: interleaving a zero below each 16-bit value
  // is BF16ToFloat's shift. unpack works within 128-bit halves, so the
  // permute first puts elements 0-3, 8-11 in the low half and 4-7, 12-15 in
  // the high one.
  const __m256i zero = _mm256_setzero_si256();
  for (; i + 16 <= n; i += 16) {
    const __m256i h =
        _mm256_permute4x64_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * i)), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_unpacklo_epi16(zero, h));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8), _mm256_unpackhi_epi16(zero, h));
  }
#endif
  Bf16LoadElements(p + 2 * i, n - i, out + i);
}

#if defined(__AVX2__)
// FloatToBF16 on 8 floats' bits, one result per 32-bit lane (<= 0xffff):
// the same integer steps as the scalar function. The compiler's own
// vectorisation of the loop below narrows to 16 bits early and widens back
// for the NaN select (~2.3 vector operations per element; this: ~1.4).
inline __m256i FloatToBF16Lanes(__m256i bits) {
  const __m256i high = _mm256_srli_epi32(bits, 16);
  const __m256i lsb = _mm256_and_si256(high, _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i quiet_nan = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
  // NaN exactly when the magnitude's bits exceed 0x7f800000, as FloatToBF16 tests.
  const __m256 x = _mm256_castsi256_ps(bits);
  const __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  return _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
}
#endif

inline void Bf16StoreLoop(const float* in, int64_t n, uint8_t* p) {
  int64_t i = 0;
#if defined(__AVX512BF16__)
  // VCVTNE2PS2BF16 rounds 32 floats to nearest even and quiets NaNs keeping
  // their top half, as FloatToBF16 does, but flushes subnormal inputs to zero
  // (checked on all 2^32 inputs on a Zen 4: those are the only differences).
  // A chunk with a subnormal goes element by element.
  const __m512i exponent = _mm512_set1_epi32(0x7f800000), mantissa = _mm512_set1_epi32(0x007fffff);
  for (; i + 32 <= n; i += 32) {
    const __m512i lo = _mm512_loadu_si512(in + i), hi = _mm512_loadu_si512(in + i + 16);
    const __mmask16 subnormal = _mm512_mask_test_epi32_mask(_mm512_testn_epi32_mask(lo, exponent), lo, mantissa) |
                                _mm512_mask_test_epi32_mask(_mm512_testn_epi32_mask(hi, exponent), hi, mantissa);
    if (subnormal != 0) {
      Bf16StoreElements(in + i, 32, p + 2 * i);
      continue;
    }
    const __m512bh packed = _mm512_cvtne2ps_pbh(_mm512_castsi512_ps(hi), _mm512_castsi512_ps(lo));
    _mm512_storeu_si512(p + 2 * i, (__m512i)packed);  // a vector cast: the same bits
  }
#elif defined(__AVX2__)
  if (n < 16) return Bf16StoreElements(in, n, p);  // before any vector setup
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = FloatToBF16Lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    const __m256i hi = FloatToBF16Lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8)));
    // packus takes 128-bit halves alternately (lo0 hi0 lo1 hi1); the permute
    // puts them back in element order. Lanes are <= 0xffff: no saturation.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 2 * i), packed);
  }
#endif
  Bf16StoreElements(in + i, n - i, p + 2 * i);
}

// This build's loops as a table (dtype_runs.h).
constexpr dtype_runs_internal::Bf16Loops kThisBuildBf16Loops = {&Bf16LoadLoop, &Bf16StoreLoop};

}  // namespace
}  // namespace nsim
