#include "sim/model/dma_queue_name.h"

namespace nsim {

std::string DmaQueueName(EngineId trigger, int queue) {
  const char* owner = "Sync";
  switch (trigger) {
    case EngineId::kTensor: owner = "Tensor"; break;
    case EngineId::kVector: owner = "Vector"; break;
    case EngineId::kScalar: owner = "Act"; break;  // ScalarE is ACT in Neuron tools
    case EngineId::kGpSimd: owner = "GpSimd"; break;
    case EngineId::kSync: owner = "Sync"; break;
  }
  return std::string("q") + owner + "IO" + std::to_string(queue);
}

}  // namespace nsim
