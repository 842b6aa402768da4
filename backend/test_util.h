#pragma once
// Test helpers: exact-message exception checks, host reads of any tensor, and
// a fake device standing in for the Neuron runtime (host memory behind the
// Neuron allocator and copy functions, with every copy recorded).
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backend/allocator.h"
#include "backend/copy_registry.h"
#include "backend/cpu/loops.h"
#include "backend/factories.h"
#include "backend/ops.h"

// Expects `stmt` to throw nsim::SimError whose what() equals `msg`.
#define EXPECT_THROW_MSG(stmt, msg)                                           \
  do {                                                                        \
    try {                                                                     \
      stmt;                                                                   \
      ADD_FAILURE() << "no exception; expected: " << (msg);                   \
    } catch (const ::nsim::SimError& e) {                                     \
      EXPECT_EQ(std::string(e.what()), std::string(msg));                     \
    }                                                                         \
  } while (0)

// Expects `stmt` to throw nsim::SimError whose what() contains `part`.
#define EXPECT_THROW_HAS(stmt, part)                                          \
  do {                                                                        \
    try {                                                                     \
      stmt;                                                                   \
      ADD_FAILURE() << "no exception; expected one containing: " << (part);   \
    } catch (const ::nsim::SimError& e) {                                     \
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what(); \
    }                                                                         \
  } while (0)

namespace nsim {
namespace at {
namespace testing {

// Row-major float values of any tensor (copied to the host if needed).
inline std::vector<float> Values(const Tensor& t) { return ReadAll<float>(t.is_cpu() ? t : t.cpu()); }

inline float BF16(float f) { return RoundTo(DType::kBF16, f); }
inline float F16(float f) { return RoundTo(DType::kF16, f); }

// Host memory registered as the Neuron device's allocator and copy functions
// for the lifetime of the object.
class FakeNeuronDevice {
 public:
  struct Copy {
    DeviceType src, dst;
    size_t nbytes;
  };

  FakeNeuronDevice() {
    Instance() = this;
    prev_alloc_ = SetDeviceAllocator(kNeuron, &alloc_);
    prev_h2d_ = SetCopyFunction(kCPU, kNeuron, &Record);
    prev_d2h_ = SetCopyFunction(kNeuron, kCPU, &Record);
    prev_d2d_ = SetCopyFunction(kNeuron, kNeuron, &Record);
  }
  ~FakeNeuronDevice() {
    SetDeviceAllocator(kNeuron, prev_alloc_);
    SetCopyFunction(kCPU, kNeuron, prev_h2d_);
    SetCopyFunction(kNeuron, kCPU, prev_d2h_);
    SetCopyFunction(kNeuron, kNeuron, prev_d2d_);
    Instance() = nullptr;
  }

  std::vector<Copy> copies;
  int allocations() const { return alloc_.count; }

 private:
  struct Alloc : DeviceAllocator {
    int count = 0;
    DataPtr Allocate(size_t nbytes, Device d) override {
      ++count;
      return GetDeviceAllocator(kCPU).Allocate(nbytes, d);
    }
  };
  static FakeNeuronDevice*& Instance() {
    static FakeNeuronDevice* d = nullptr;
    return d;
  }
  static void Record(const CopyRequest& r) {
    Instance()->copies.push_back({r.src_device.type(), r.dst_device.type(), r.nbytes});
    std::memcpy(static_cast<char*>(r.dst_base) + r.dst_offset,
                static_cast<const char*>(r.src_base) + r.src_offset, r.nbytes);
  }

  Alloc alloc_;
  DeviceAllocator* prev_alloc_;
  CopyFunction prev_h2d_, prev_d2h_, prev_d2d_;
};

inline Device Neuron0() { return Device("neuron:0"); }

}  // namespace testing
}  // namespace at
}  // namespace nsim
