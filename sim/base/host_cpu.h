#pragma once
// What the host CPU offers beyond the portable x86-64 baseline, checked once
// at run time. Code built for the host's vector units (a separate file with
// -mavx2, see sim/isa/gemm.h, sim/memory/dtype_runs.h) runs only when this
// says so; the default build stays portable.
namespace nsim {

bool HostHasAvx2Fma();  // AVX2 and FMA (Intel Haswell / AMD Zen and later)

// A table of kernel entry points of which a portable and an AVX2 build
// exist (both giving the same bits), chosen once per process rather than
// checked per call (issue 12: the check sat on the per-row path). At
// namespace scope, in this order:
//   HostBuild<Table> g_kernels(kPortable, kAvx2);  // constant-initialised
//   [[maybe_unused]] const bool g_kernels_chosen = g_kernels.ChooseForHost();
// It holds the portable table from constant initialisation on, so a call
// from any static initialiser is valid, and switches to the AVX2 table
// during dynamic initialisation when the host has AVX2 and FMA.
template <class Table>
class HostBuild {
 public:
  constexpr HostBuild(const Table& portable, const Table& avx2) : table_(&portable), avx2_(&avx2) {}
  // Returns true, to initialise the namespace-scope bool above.
  bool ChooseForHost() {
    if (HostHasAvx2Fma()) table_ = avx2_;
    return true;
  }
  const Table& operator*() const { return *table_; }
  const Table* operator->() const { return table_; }

 private:
  const Table* table_;
  const Table* avx2_;
};

}  // namespace nsim
