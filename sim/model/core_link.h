#pragma once
// The cross-core instructions of one grid launch (issue 24): sendrecv and
// core_barrier of program p meet those of its pair peer p ^ 1 (the two
// physical cores of an LNC=2 logical core, which share an HBM stack on trn2).
//
// Pairing: the Nth sendrecv (core_barrier) an engine stream of program p
// reaches meets the Nth one of the same engine stream of its peer (NKI pairs
// "positionally by program order"; the kernel text orders each engine's
// stream, not the engines against each other).
//
// Timing (nki.isa.core_barrier: "each NeuronCore writes a semaphore to each
// other core (remote semaphore update) and then waits for the other cores'
// semaphores (local semaphore wait)"): an instruction arrives when it has
// dispatched; the pair meets at the later arrival plus one remote semaphore
// write (chip.remote_semaphore_latency; unmeasured, see the configs). Until
// then its engine waits. A core_barrier ends there. A sendrecv
// then triggers its DMA transfer, src -> the peer's dst, on its own core's
// DMA engines as an SBUF -> SBUF dma_copy of the same bytes; both
// instructions complete (signal their semaphores) once both transfers have,
// plus one remote semaphore write (the peer's transfer reports into this
// core), since each one's dst is the other's transfer.
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/base/time.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

struct RunState;

class CoreLink {
 public:
  explicit CoreLink(std::vector<RunState*> programs) : programs_(std::move(programs)) {}

  // Program `program`'s engine reached core-link instruction `li`, its
  // `ordinal`-th (from 0) of that opcode on that engine, arriving at `at`.
  // Returns the time the pair meets, or -1 when the peer has not arrived: the
  // engine stops and is woken (RunState::wake_engine) at the meeting time
  // once it does. Throws SimError naming the instruction when the program has
  // no peer or the two sendrecvs do not fit each other.
  Picos Arrive(int program, const LoadedInstruction& li, int ordinal, Picos at);
  // Program `program`'s sendrecv transfer `li` completed at `done`: its src
  // values go to the peer's dst. Once both transfers of the pair are done,
  // each side's semaphores are signalled and its run goes quiet (the DMA
  // model leaves a completed sendrecv busy until then).
  void SendDone(int program, const LoadedInstruction& li, Picos done);
  // The instructions still waiting for a peer that never came, naming both
  // programs' kernel lines; "" when none does (a deadlock report).
  std::string Unmatched() const;

 private:
  struct Side {
    const LoadedInstruction* li = nullptr;
    Picos at = -1;    // arrival
    Picos done = -1;  // sendrecv: its transfer completed
  };
  struct Slot {
    Side side[2];
    Picos meet = -1;
  };
  using Key = std::tuple<int, int, int, int>;  // pair, opcode, engine, ordinal

  void CheckPair(int program, const Slot& s) const;
  void Deliver(int from, const Side& sender, const Side& receiver) const;
  std::string Line(int program, const LoadedInstruction& li) const;

  std::vector<RunState*> programs_;
  std::map<Key, Slot> slots_;
  std::map<std::pair<int, const LoadedInstruction*>, Key> sendrecvs_;  // (program, li) -> its slot
};

}  // namespace nsim
