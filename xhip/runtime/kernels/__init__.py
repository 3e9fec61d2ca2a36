"""GPU kernels from templates: specializations, their argument ABI and launch values,
rendering, the on-disk compile cache and CI's offline compilers.

Nothing here runs a kernel: the GPU backend (xhip.runtime.backends.gpu) compiles and
launches what this package renders, and the reference backend's NumPy kernels live
with it (xhip.runtime.backends.reference.kernels).
"""
