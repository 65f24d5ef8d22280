// Thread-count policy of the CPU kernels (Note [Kernel threads]).
#include "threads.h"

#include <cblas.h>

#include <dirent.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mfcpu {
namespace {
// The largest team: max(1024, 4 per core), as flow.set_num_threads allows
// (monoflow/_threads.py). libgomp starts the whole team at the first parallel
// region, and 10^5 threads already end the process.
int max_team() { return std::max(1024, 4 * static_cast<int>(std::thread::hardware_concurrency())); }

int env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  int n = std::atoi(v);
  return n > 0 ? std::min(n, max_team()) : 0;  // (an environment cannot be refused with an error: capped)
}

// set_num_threads(): 0 until called; bumping the generation tells every
// worker to re-read it (Note [Kernel threads]).
std::atomic<int32_t> g_set_threads{0};
std::atomic<uint32_t> g_generation{0};
thread_local uint32_t t_generation = 0;

// ---- the default team: cores less other processes' runnable threads
constexpr int64_t kSampleEveryNs = 200 * 1000 * 1000;
constexpr double kSmoothing = 0.3;  // weight of a new sample: ~1 s to follow a change

int64_t coarse_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// "procs_running N" of /proc/stat: the threads runnable on the whole system now.
int system_runnable() {
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return -1;
  char line[256];
  int n = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "procs_running ", 14) == 0) {
      n = std::atoi(line + 14);
      break;
    }
  }
  std::fclose(f);
  return n;
}

// This process's threads in state R (running or runnable).
int own_runnable() {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int n = 0;
  char path[64], buf[512];
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
    FILE* f = std::fopen(path, "r");
    if (!f) continue;  // the thread ended meanwhile
    size_t len = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[len] = 0;
    // "tid (comm) S ...": the state follows the last ')' (comm may hold one)
    const char* close = std::strrchr(buf, ')');
    if (close && close[1] == ' ' && close[2] == 'R') ++n;
  }
  closedir(dir);
  return n;
}

std::atomic<int64_t> g_next_sample_ns{0};
std::atomic<int32_t> g_sample_busy{0};
std::atomic<int32_t> g_free_team{0};  // 0: not sampled yet (or no /proc): all cores
double g_others_smoothed = 0;         // written under g_sample_busy only

// Read once: glibc answers hardware_concurrency() by reading /sys
// (get_nprocs), ~5 us, and this is asked for every kernel that sizes its split.
int cores() {
  static const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return n;
}

// Re-samples at most every kSampleEveryNs, by one thread at a time; the
// others keep the last answer.
int default_team() {
  const int64_t now = coarse_now_ns();
  if (now >= g_next_sample_ns.load(std::memory_order_relaxed) &&
      !g_sample_busy.exchange(1, std::memory_order_acquire)) {
    g_next_sample_ns.store(now + kSampleEveryNs, std::memory_order_relaxed);
    const int all = system_runnable(), own = own_runnable();
    if (all >= 0 && own >= 0) {
      g_others_smoothed += kSmoothing * (std::max(0, all - own) - g_others_smoothed);
      const int busy = static_cast<int>(std::lround(g_others_smoothed));
      g_free_team.store(std::clamp(cores() - busy, 1, cores()), std::memory_order_relaxed);
    }
    g_sample_busy.store(0, std::memory_order_release);
  }
  const int team = g_free_team.load(std::memory_order_relaxed);
  return team > 0 ? team : cores();
}

thread_local int t_team = 0;  // the team this worker last gave OpenMP
}  // namespace

// The count the environment asks for; 0 when it asks for none.
static int requested_threads() {
  static const int n = [] {
    if (int v = env_threads("MONOFLOW_NUM_THREADS")) return v;
    return env_threads("OMP_NUM_THREADS");
  }();
  return n;
}

namespace {
bool team_is_fixed() { return g_set_threads.load(std::memory_order_relaxed) || requested_threads(); }

void apply_team(int team) {
  if (team == t_team) return;
  t_team = team;
#ifdef _OPENMP
  omp_set_num_threads(team);
#endif
}
}  // namespace

int kernel_threads() {
  if (int v = g_set_threads.load(std::memory_order_relaxed)) return v;
  if (int v = requested_threads()) return v;
  return cores();
}

void configure_worker_threads() {
  t_generation = g_generation.load(std::memory_order_acquire);
#ifdef _OPENMP
  omp_set_dynamic(0);  // the team size is ours (default_team), not libgomp's load average
#endif
  t_team = 0;
  apply_team(team_is_fixed() ? kernel_threads() : default_team());
}

void refresh_worker_threads() {
  if (g_generation.load(std::memory_order_relaxed) != t_generation) configure_worker_threads();
  else if (!team_is_fixed()) apply_team(default_team());
}

bool set_kernel_threads(int32_t n) {
  if (n <= 0 || n > max_team()) return false;
  g_set_threads.store(n, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_release);
  return true;
}

void configure_blas_threads() { scipy_openblas_set_num_threads(1); }

// Note [A preemption point before each parallel region]
//   Observed on a 2-vCPU VM: after the process idles for a moment, a thread
//   the stream worker depends on can land on a CPU where a thread of ours
//   spins (libgomp's idle team member, or the worker at the region's barrier)
//   and wait for the next scheduler tick: every parallel kernel took exactly
//   4 ms (a 256x256 matmul at 8 GFLOP/s instead of 200). A system call before
//   the region is a point where the kernel can switch to that thread first;
//   sched_yield is the cheapest one (< 1 us, paid only by kernels big enough
//   to go parallel). With the shorter spin of Note [A short OpenMP spin]
//   (python/monoflow/_plugins.py), the worst case is a fraction of a
//   millisecond.
void before_parallel_region() { sched_yield(); }

}  // namespace mfcpu
