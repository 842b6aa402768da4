// Every example kernel under sim/kernel/examples parses, and round-trips
// through the printer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/base/error.h"
#include "sim/kernel/hash.h"
#include "sim/kernel/kernel_testing.h"
#include "sim/kernel/parser.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace {

const char kExamplesDir[] = "sim/kernel/examples";

std::vector<std::string> ExampleFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kExamplesDir)) {
    if (entry.path().extension() == ".nk") files.push_back(entry.path().string());
  }
  return files;
}

TEST(Examples, AllParseAndRoundTrip) {
  const std::vector<std::string> files = ExampleFiles();
  EXPECT_GE(files.size(), 3u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const Kernel k = LoadKernelFile(f);
    EXPECT_GT(k.NumInstructions(), 0u);
    const Kernel back = ParseKernel(FormatKernel(k), f + " (printed)");
    EXPECT_TRUE(KernelsEqual(k, back));
    EXPECT_EQ(KernelHash(k), KernelHash(back));
    // KernelHash streams the text piece by piece: the hash of the whole text.
    EXPECT_EQ(KernelHash(k), Fnv1a64(FormatKernel(k)));
  }
}

TEST(Examples, KnownShapes) {
  const Kernel add = LoadKernelFile(std::string(kExamplesDir) + "/trivial_add.nk");
  EXPECT_EQ(add.name, "trivial_add");
  EXPECT_EQ(add.NumInstructions(), 4u);
  const Kernel mm = LoadKernelFile(std::string(kExamplesDir) + "/matmul.nk");
  EXPECT_EQ(mm.stream(EngineId::kTensor).size(), 2u);
  EXPECT_TRUE(mm.instruction(EngineId::kTensor, 1).accumulate);
  const Kernel rms = LoadKernelFile(std::string(kExamplesDir) + "/rmsnorm.nk");
  EXPECT_EQ(rms.tensors[rms.FindTensor("x")].shape, (std::vector<int64_t>{4, 512}));
}

// A .nk file a person wrote is its own source: profiles name FILE:LINE for
// each instruction; the same text parsed from memory (a generator's) names
// none, and a line's `src:` comment wins over the file's line.
TEST(Examples, AKernelFileNamesItsOwnLinesAsSource) {
  const std::string path = std::string(kExamplesDir) + "/trivial_add.nk";
  const Kernel add = LoadKernelFile(path);
  for (int n = 0; n < kNumEngines; ++n) {
    const EngineId e = static_cast<EngineId>(n);
    for (size_t i = 0; i < add.stream(e).size(); ++i) {
      const int line = add.instruction(e, i).line;
      EXPECT_EQ(add.SourceAt(line), path + ":" + std::to_string(line) + " trivial_add");
    }
  }
  const Kernel from_text = ParseKernel(ReadKernelFile(path), path);
  EXPECT_EQ(from_text.SourceAt(add.instruction(EngineId::kVector, 0).line), "");
  const std::string annotated_path = ::testing::TempDir() + "/annotated.nk";
  std::ofstream(annotated_path) << "kernel k\ntensor t sbuf f32 [1, 4]\n"
                                << "vector: memset t value=0  # src: gen.py:3 f\nvector: memset t value=1\n";
  const Kernel annotated = LoadKernelFile(annotated_path);
  EXPECT_EQ(annotated.SourceAt(3), "gen.py:3 f");
  EXPECT_EQ(annotated.SourceAt(4), annotated_path + ":4 k");
}

TEST(Examples, MissingFileIsAnError) {
  EXPECT_THROW(LoadKernelFile("sim/kernel/examples/does_not_exist.nk"), SimError);
}

}  // namespace
}  // namespace nsim
