#pragma once
// Uniform random numbers generated on the device: Speck32/64 (Beaulieu et
// al., "The SIMON and SPECK Families of Lightweight Block Ciphers", NSA 2013)
// in counter mode, the construction of Random123's counter-based generators
// (Salmon et al., SC'11: a keyed bijection of the element's index; Philox and
// Threefry are the same idea with 32/64-bit words). Speck32/64 is chosen
// because its words are 16 bits: every value it makes (add, xor, shifts of
// 16-bit words) stays below 2^25 and is exact in the engines' fp32 ALU
// (sim/kernel/alu_act_tables.h), where Philox4x32's 32x32-bit products are not.
//
// Element e (0 <= e < 2^24) of a call is the encryption of the 32-bit block
// (e >> 16, e & 0xFFFF) under the call's 64-bit key; the 32-bit result's top
// 24 bits become the uniform (bits) * 2^-24 in [0, 1), exactly in fp32.
// The round keys are the kernel's input "keys" (22 fp32 words, made by
// SpeckRoundKeys), so one kernel serves every key.
//
// Cost per [128, F] tile: one GpSimd iota, then 2 VectorE instructions to
// split the index, 7 per round x 22 rounds, 2 to form the float (158 VectorE
// instructions over F elements per partition), and one store DMA.
#include <array>
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {

constexpr int kSpeckRounds = 22;
constexpr int64_t kMaxRandomElements = int64_t{1} << 24;  // indices exact in fp32

// The 22 round keys of the 64-bit key (Speck's key schedule).
std::array<uint16_t, kSpeckRounds> SpeckRoundKeys(uint64_t key);
// The host reference of one block: (x, y) -> (x', y').
std::array<uint16_t, 2> SpeckEncrypt(const std::array<uint16_t, kSpeckRounds>& rk, uint16_t x, uint16_t y);
// The uniform the device makes for element `e` under `key` (the reference).
float SpeckUniform(uint64_t key, int64_t e);

// Elements per partition of the tiles of an n-element fill, and the padded
// element count the kernel writes (a whole number of [128, F] tiles).
int64_t RandomTileCols(int64_t n);
int64_t RandomPaddedCount(int64_t n);

// The kernel: fp32 "out" [RandomPaddedCount(n)] from fp32 "keys" [22].
Kernel RandomUniformKernel(int64_t n);

}  // namespace neuron
}  // namespace nsim
