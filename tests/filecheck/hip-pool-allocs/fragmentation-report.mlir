// RUN: xhip-opt %s -p 'hip-pool-allocs{emit-fragmentation-report=true}' --split-input-file 2>&1 >/dev/null | filecheck %s
// RUN: xhip-opt %s -p 'hip-pool-allocs{emit-fragmentation-report=true planner=stacked}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=STACKED
// Without the option nothing is printed:
// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty

// Static sizes: the report evaluates both sides. A (512 B) is live throughout,
// B and C (256 B each) one after the other: 768 bytes are live at most and the
// plan needs no more.
func.func @static(%ctx: !hip.context, %x: memref<128xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<128xf32>
  hip.relu(%ctx) ins(%x : memref<128xf32>) outs(%a : memref<128xf32>)
  %b = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%y : memref<64xf32>) outs(%b : memref<64xf32>)
  hip.relu(%ctx) ins(%b : memref<64xf32>) outs(%y : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%y : memref<64xf32>) outs(%c : memref<64xf32>)
  hip.relu(%ctx) ins(%c : memref<64xf32>) outs(%y : memref<64xf32>)
  hip.relu(%ctx) ins(%a : memref<128xf32>) outs(%x : memref<128xf32>)
  func.return
}

// CHECK:   hip-pool-allocs fragmentation: @static domain 0: pool 768 vs max-live lower bound 768 = 768/768 bytes (0.0% over)
// STACKED: hip-pool-allocs fragmentation: @static domain 0: pool 1024 vs max-live lower bound 768 = 1024/768 bytes (33.3% over)
// QUIET-NOT: fragmentation

// -----

// Runtime sizes: both sides as size expressions, per domain.
func.func @dynamic(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d0: index, %d1: index) {
  %a = memref.alloc(%d0) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d1) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:   hip-pool-allocs fragmentation: @dynamic domain 0: pool 16384*max(2*%d0, %d1) vs max-live lower bound 16384*max(2*%d0, %d1)
// STACKED: hip-pool-allocs fragmentation: @dynamic domain 0: pool 32768*%d0 + 16384*%d1 vs max-live lower bound 16384*max(2*%d0, %d1)
