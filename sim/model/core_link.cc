#include "sim/model/core_link.h"

#include <algorithm>
#include <sstream>

#include "sim/base/error.h"
#include "sim/isa/common.h"
#include "sim/memory/access.h"
#include "sim/model/run_state.h"
#include "sim/model/semaphore_board.h"

namespace nsim {
namespace {

const char* Ordinal(int n) {  // 1st, 2nd, ... (n from 1)
  return n % 100 / 10 == 1 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

std::string Nth(int ordinal) { return std::to_string(ordinal + 1) + Ordinal(ordinal + 1); }

}  // namespace

std::string CoreLink::Line(int program, const LoadedInstruction& li) const {
  const InstructionView in = programs_[program]->kernel->instruction(li);
  return in.line > 0 ? "line " + std::to_string(in.line) : "instruction " + std::to_string(li.index);
}

Picos CoreLink::Arrive(int program, const LoadedInstruction& li, int ordinal, Picos at) {
  const LoadedKernel& k = *programs_[program]->kernel;
  const int peer = program ^ 1;
  if (peer >= static_cast<int>(programs_.size())) {
    isa::Fail(k.kernel(), k.instruction(li),
              "program " + std::to_string(program) + " has no pair peer: " + OpcodeName(li.opcode) +
                  " pairs programs 2k and 2k+1 (the two cores of an LNC=2 logical core), and this launch has " +
                  std::to_string(programs_.size()) + " program(s)");
  }
  const Key key{program / 2, static_cast<int>(li.opcode), static_cast<int>(li.engine), ordinal};
  Slot& s = slots_[key];
  Side& me = s.side[program & 1];
  if (me.li == nullptr) {
    me.li = &li;
    me.at = at;
    if (li.opcode == Opcode::kSendRecv) sendrecvs_[{program, &li}] = key;
  }
  const Side& other = s.side[peer & 1];
  if (other.li == nullptr) return -1;
  if (s.meet < 0) {  // the second to arrive: the first waits at its engine
    CheckPair(program, s);
    s.meet = AddTime(std::max(me.at, other.at), programs_[program]->config->chip.remote_semaphore_latency_ps);
    programs_[peer]->wake_engine(li.engine, s.meet);
  }
  return s.meet;
}

// The two sendrecvs exchange: each one's src fills the other's dst.
void CoreLink::CheckPair(int program, const Slot& s) const {
  const Side& me = s.side[program & 1];
  if (me.li->opcode != Opcode::kSendRecv) return;
  const int peer = program ^ 1;
  const Side& other = s.side[peer & 1];
  const LoadedKernel& mk = *programs_[program]->kernel;
  const LoadedKernel& pk = *programs_[peer]->kernel;
  const InstructionView mi = mk.instruction(*me.li), pi = pk.instruction(*other.li);
  auto size = [](const Kernel& k, const AccessPattern& ap) {
    return std::to_string(ap.NumElements()) + " " + DTypeName(isa::TypeOf(k, ap));
  };
  for (int dir = 0; dir < 2; ++dir) {
    const Kernel& sk = dir == 0 ? mk.kernel() : pk.kernel();
    const Kernel& rk = dir == 0 ? pk.kernel() : mk.kernel();
    const AccessPattern& src = dir == 0 ? mi.src0 : pi.src0;
    const AccessPattern& dst = dir == 0 ? pi.dst : mi.dst;
    if (src.NumElements() == dst.NumElements() && isa::TypeOf(sk, src) == isa::TypeOf(rk, dst)) continue;
    const int from = dir == 0 ? program : peer;
    const int to = dir == 0 ? peer : program;
    isa::Fail(mk.kernel(), mi,
              "program " + std::to_string(from) + " sends " + size(sk, src) + " elements (its " +
                  Line(from, *s.side[from & 1].li) + ") into program " + std::to_string(to) + "'s dst of " +
                  size(rk, dst) + " elements (its matching sendrecv, " + Line(to, *s.side[to & 1].li) + ")");
  }
}

void CoreLink::SendDone(int program, const LoadedInstruction& li, Picos done) {
  const Key key = sendrecvs_.at({program, &li});
  Slot& s = slots_[key];
  Side& me = s.side[program & 1];
  const Side& other = s.side[(program ^ 1) & 1];
  me.done = done;
  Deliver(program, me, other);
  if (other.done < 0) return;  // the peer's transfer, which fills this side's dst, is still moving
  const Picos last = std::max(me.done, other.done);
  for (int p : {program & ~1, program | 1}) {
    RunState& run = *programs_[p];
    const LoadedInstruction& sl = *s.side[p & 1].li;
    run.NoteEnd(last);
    run.sems->Signal(AddTime(last, run.config->chip.remote_semaphore_latency_ps), run.kernel->signals(sl), sl.num_signals,
                     {sl.engine, sl.index});
    run.Quiet();
  }
  sendrecvs_.erase({program, &li});
  sendrecvs_.erase({program ^ 1, other.li});
}

// The sender's src bytes into the receiver's dst (same element type and
// count: Validate and CheckPair).
void CoreLink::Deliver(int from, const Side& sender, const Side& receiver) const {
  RunState& a = *programs_[from];
  RunState& b = *programs_[from ^ 1];
  if (!a.ctx->compute_values || !b.ctx->compute_values) return;
  const BoundAccess src = a.ctx->Bind(a.kernel->instruction(*sender.li).src0);
  const BoundAccess dst = b.ctx->Bind(b.kernel->instruction(*receiver.li).dst);
  std::vector<uint8_t> raw(static_cast<size_t>(src.count * DTypeSize(src.dtype)));
  ReadRaw(src, a.ctx->mem, a.ctx->hbm, raw.data());
  WriteRaw(dst, b.ctx->mem, b.ctx->hbm, raw.data());
}

std::string CoreLink::Unmatched() const {
  std::ostringstream os;
  for (const auto& [key, s] : slots_) {
    if (s.meet >= 0) continue;
    const int side = s.side[0].li != nullptr ? 0 : 1;
    const int program = std::get<0>(key) * 2 + side, peer = program ^ 1;
    const LoadedInstruction& li = *s.side[side].li;
    const std::string op = OpcodeName(li.opcode), engine = EngineName(li.engine);
    // The peer's last instruction of that opcode on that engine, if any.
    int reached = 0;
    const LoadedInstruction* last = nullptr;
    for (const auto& [k2, s2] : slots_) {
      if (std::get<0>(k2) != std::get<0>(key) || std::get<1>(k2) != std::get<1>(key) ||
          std::get<2>(k2) != std::get<2>(key) || s2.side[peer & 1].li == nullptr) {
        continue;
      }
      ++reached;
      last = s2.side[peer & 1].li;
    }
    if (os.tellp() > 0) os << "\n";
    os << "kernel '" << programs_[program]->kernel->kernel().name << "' " << Line(program, li) << " (" << engine
       << " " << op << "): program " << program << "'s " << Nth(std::get<3>(key)) << " " << op << " on " << engine
       << " is never matched: program " << peer << " reaches " << reached << " " << op << " on " << engine;
    if (last != nullptr) os << " (the last at its " << Line(peer, *last) << ")";
    os << "; on hardware this hangs (NKI pairs them by program order, so both programs must run the same number)";
  }
  return os.str();
}

}  // namespace nsim
