// HMAC-SHA-256 for the TCP store's challenge-response (Note [TCPStore
// handshake]): a small self-contained implementation, so that the collective
// layer needs no crypto library.
#pragma once
#include <string>

namespace monoflow::collective::crypto {

// The 32-byte HMAC-SHA-256 of `message` under `key`.
std::string hmac_sha256(const std::string& key, const std::string& message);
// Equality that takes the same time wherever the strings differ.
bool constant_time_equal(const std::string& a, const std::string& b);
// `n` bytes from the kernel's random source (getrandom).
std::string random_bytes(size_t n);

}  // namespace monoflow::collective::crypto
