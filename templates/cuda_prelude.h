// xhip HIP-on-CUDA prelude: prepended (for CUDA only) to the HIP source rendered from
// templates/*.hip.j2, so that NVRTC or nvcc compiles the same kernels for NVIDIA GPUs.
// It maps the HIP names the templates use to CUDA; the templates use nothing else.
#ifndef XHIP_PRELUDE
#define XHIP_PRELUDE 1
#define XHIP_CUDA 1

// Thread and block built-ins (threadIdx, blockIdx, blockDim, gridDim, __syncthreads)
// are spelled the same in HIP and CUDA; HIP's hipThreadIdx_x-style aliases map here.
#define hipThreadIdx_x threadIdx.x
#define hipBlockIdx_x blockIdx.x
#define hipBlockDim_x blockDim.x
#define hipGridDim_x gridDim.x

// Warp size: a compile-time constant (HIP: 64 on gfx90a, from the compiler).
#define XHIP_WARP_SIZE 32

// Shuffles: HIP's are implicitly whole-warp; CUDA's name the participating lanes.
#define XHIP_SHFL_DOWN(value, delta) __shfl_down_sync(0xffffffffu, (value), (delta))
#define XHIP_SHFL_XOR(value, mask) __shfl_xor_sync(0xffffffffu, (value), (mask))

// Atomics (atomicAdd, atomicCAS, atomicMax) are spelled the same; 64-bit integer ones
// take unsigned long long in both, which the templates cast to.

// Math: CUDA's device math library overloads sqrt/exp/log/tanh/erf/erfc/pow for float
// and double like HIP's does; the infinities come from compiler built-ins in both.
#define XHIP_INFINITY_F __int_as_float(0x7f800000)
#define XHIP_INFINITY_D __longlong_as_double(0x7ff0000000000000LL)

// Half precision, only when a kernel uses it (NVRTC finds these headers through -I of
// the CUDA include directory; it has no default search path).
#ifdef XHIP_NEEDS_FP16
#include <cuda_fp16.h>
#endif
#ifdef XHIP_NEEDS_BF16
#include <cuda_bf16.h>
typedef __nv_bfloat16 xhip_bfloat16;
#endif
#endif  // XHIP_PRELUDE
