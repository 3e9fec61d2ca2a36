// xhip host emulation: runs the kernels rendered from templates/*.hip.j2 on the CPU, for
// tests on machines without a GPU. Like the CUDA prelude it is prepended to the HIP
// source; it maps the same names onto the host: one std::thread per GPU thread, blocks
// one after another, __syncthreads and warp shuffles as barriers (a warp is 32 threads
// here). Slow, exact, and the same text the GPU compilers see.
#ifndef XHIP_PRELUDE
#define XHIP_PRELUDE 1
#define XHIP_HOST_EMULATION 1
#include <math.h>
#include <string.h>
#include <barrier>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __shared__ static
#define __restrict__

struct dim3 { unsigned int x = 1, y = 1, z = 1; };
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

#define XHIP_WARP_SIZE 32
#define XHIP_INFINITY_F __builtin_huge_valf()
#define XHIP_INFINITY_D __builtin_huge_val()

inline std::barrier<>* xhip_emu_block_barrier;
inline thread_local std::barrier<>* xhip_emu_warp_barrier;
inline unsigned long long xhip_emu_lanes[1024];

inline void __syncthreads() { xhip_emu_block_barrier->arrive_and_wait(); }

inline unsigned int xhip_emu_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// Every lane of the warp publishes its value, then reads lane + delta (its own past the end).
template <class T> T xhip_emu_shfl_down(T value, int delta) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a wide type");
  const unsigned int me = xhip_emu_thread();
  memcpy(&xhip_emu_lanes[me], &value, sizeof(T));
  xhip_emu_warp_barrier->arrive_and_wait();
  const unsigned int source = (me % XHIP_WARP_SIZE) + delta < XHIP_WARP_SIZE ? me + delta : me;
  T result;
  memcpy(&result, &xhip_emu_lanes[source], sizeof(T));
  xhip_emu_warp_barrier->arrive_and_wait();
  return result;
}
#define XHIP_SHFL_DOWN(value, delta) xhip_emu_shfl_down((value), (delta))

// Every lane publishes its value, then reads lane ^ mask (a butterfly within the warp).
template <class T> T xhip_emu_shfl_xor(T value, int mask) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a wide type");
  const unsigned int me = xhip_emu_thread();
  memcpy(&xhip_emu_lanes[me], &value, sizeof(T));
  xhip_emu_warp_barrier->arrive_and_wait();
  const unsigned int source = me - (me % XHIP_WARP_SIZE) + ((me % XHIP_WARP_SIZE) ^ (unsigned int)mask);
  T result;
  memcpy(&result, &xhip_emu_lanes[source], sizeof(T));
  xhip_emu_warp_barrier->arrive_and_wait();
  return result;
}
#define XHIP_SHFL_XOR(value, mask) xhip_emu_shfl_xor((value), (mask))

// A block-wide vote: thread 0 clears it, every thread with a true predicate sets it,
// everyone reads it; the third barrier keeps the next vote's clear after every read.
inline int xhip_emu_vote;
inline int __syncthreads_or(int predicate) {
  if (xhip_emu_thread() == 0) xhip_emu_vote = 0;
  __syncthreads();
  if (predicate) __atomic_store_n(&xhip_emu_vote, 1, __ATOMIC_SEQ_CST);
  __syncthreads();
  const int result = __atomic_load_n(&xhip_emu_vote, __ATOMIC_SEQ_CST);
  __syncthreads();
  return result;
}

inline unsigned long long atomicCAS(unsigned long long* address, unsigned long long expected, unsigned long long desired) {
  __atomic_compare_exchange_n(address, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}

// Runs the grid, blocks in turn. A kernel that never synchronizes (`cooperative` false)
// runs its threads one after another; one that does gets one host thread per GPU thread
// of a block, kept for every block of the launch (a barrier between blocks).
inline void xhip_emu_launch(dim3 grid, dim3 block, bool cooperative, const std::function<void()>& kernel) {
  gridDim = grid;
  blockDim = block;
  const unsigned int threads = block.x * block.y * block.z;
  auto each_block = [&](const std::function<void()>& body) {
    for (unsigned int bz = 0; bz < grid.z; ++bz)
      for (unsigned int by = 0; by < grid.y; ++by)
        for (unsigned int bx = 0; bx < grid.x; ++bx) {
          blockIdx = dim3{bx, by, bz};
          body();
        }
  };
  auto place = [&](unsigned int t) { threadIdx = dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)}; };
  if (!cooperative) {
    each_block([&] {
      for (unsigned int t = 0; t < threads; ++t) {
        place(t);
        kernel();
      }
    });
    return;
  }
  std::barrier<> block_barrier(threads);
  std::vector<std::barrier<>*> warps;
  for (unsigned int w = 0; w < (threads + XHIP_WARP_SIZE - 1) / XHIP_WARP_SIZE; ++w)
    warps.push_back(new std::barrier<>(std::min<unsigned int>(XHIP_WARP_SIZE, threads - w * XHIP_WARP_SIZE)));
  xhip_emu_block_barrier = &block_barrier;
  std::vector<std::thread> pool;
  for (unsigned int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      place(t);
      xhip_emu_warp_barrier = warps[t / XHIP_WARP_SIZE];
      each_block([&] {
        kernel();
        block_barrier.arrive_and_wait();  // no thread starts the next block early
      });
    });
  for (auto& thread : pool) thread.join();
  for (auto* warp : warps) delete warp;
}
#endif  // XHIP_PRELUDE
