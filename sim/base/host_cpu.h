#pragma once
// What the host CPU offers beyond the portable x86-64 baseline, checked once
// at run time. Code built for the host's vector units (a separate file with
// -mavx2, see sim/isa/gemm.h, sim/memory/dtype_runs.h) runs only when this
// says so; the default build stays portable.
namespace nsim {

bool HostHasAvx2Fma();  // AVX2 and FMA (Intel Haswell / AMD Zen and later)
// AVX-512 F, BW, VL and BF16 (AMD Zen 4, Intel Cooper Lake and later), with
// the OS saving the 512-bit registers.
bool HostHasAvx512Bf16();

// A table of kernel entry points of which a portable, an AVX2 and optionally
// an AVX-512 BF16 build exist (all giving the same bits), chosen once per
// process rather than checked per call (issue 12: the check sat on the
// per-row path). At namespace scope, in this order:
//   HostBuild<Table> g_kernels(kPortable, kAvx2[, &kAvx512]);  // constant-initialised
//   [[maybe_unused]] const bool g_kernels_chosen = g_kernels.ChooseForHost();
// It holds the portable table from constant initialisation on, so a call
// from any static initialiser is valid, and switches to the best build the
// host runs during dynamic initialisation.
template <class Table>
class HostBuild {
 public:
  constexpr HostBuild(const Table& portable, const Table& avx2, const Table* avx512 = nullptr)
      : table_(&portable), avx2_(&avx2), avx512_(avx512) {}
  // Returns true, to initialise the namespace-scope bool above.
  bool ChooseForHost() {
    if (avx512_ != nullptr && HostHasAvx512Bf16()) {
      table_ = avx512_;
    } else if (HostHasAvx2Fma()) {
      table_ = avx2_;
    }
    return true;
  }
  const Table& operator*() const { return *table_; }
  const Table* operator->() const { return table_; }

 private:
  const Table* table_;
  const Table* avx2_;
  const Table* avx512_;
};

}  // namespace nsim
