#include "monoflow/collective/communicator.h"

namespace monoflow::collective {

uint64_t Communicator::p2p_slot(int peer, bool is_send, uint32_t tag) {
  std::lock_guard<std::mutex> lock(p2p_mu_);
  uint32_t seq = p2p_seq_[{peer, is_send, tag}]++;
  // Prefix 0xF0 keeps these clear of the slots Gloo derives from collective
  // tags (small prefixes in the top byte).
  return (uint64_t(0xF0) << 56) | (uint64_t(tag & 0xFFFFFF) << 32) | seq;
}

}  // namespace monoflow::collective
