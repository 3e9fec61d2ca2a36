// RUN: xhip-opt %s -p hip-hoist-alloc-size-arith --split-input-file | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-hoist-alloc-size-arith --split-input-file | xhip-opt - -p hip-hoist-alloc-size-arith --split-input-file | filecheck %s

// Sizes computed next to the op that needs them move above the first allocation,
// whole cones in program order (the dims, the constant, the products).
func.func @hoisted(%ctx: !hip.context, %x: memref<?x?xf32>, %zero: f32) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%a : memref<?xf32>)
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %c4 = arith.constant 4 : index
  %nm = arith.muli %n, %m : index
  %size = arith.muli %nm, %c4 : index
  %b = memref.alloc(%size) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%b : memref<?xf32>)
  %half = arith.divui %size, %c4 : index
  %c = memref.alloc(%half, %nm) : memref<?x?xf32>
  hip.fill(%ctx, %zero) outs(%c : memref<?x?xf32>)
  func.return
}

// CHECK-LABEL: func.func @hoisted
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = memref.dim %x, %c0
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %m = memref.dim %x, %c1
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %nm = arith.muli %n, %m : index
// CHECK-NEXT:    %size = arith.muli %nm, %c4 : index
// CHECK-NEXT:    %half = arith.divui %size, %c4 : index
// CHECK-NEXT:    %a = memref.alloc(%n) : memref<?xf32>
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %b = memref.alloc(%size) : memref<?xf32>
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %c = memref.alloc(%half, %nm) : memref<?x?xf32>

// -----

// What stays: a size from a host load (and everything computed from it), a
// division by a runtime value (it may fault), a dim of an allocation made after
// the first one, and a readback (it waits for the device).
func.func @kept(%ctx: !hip.context, %x: memref<?xf32>, %p: memref<1xi64>, %count: memref<1xi64>, %zero: f32) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%a : memref<?xf32>)
  %v = memref.load %p[%c0] : memref<1xi64>
  %i = arith.index_cast %v : i64 to index
  %loaded = arith.muli %i, %n : index
  %b = memref.alloc(%loaded) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%b : memref<?xf32>)
  %ratio = arith.divui %n, %loaded : index
  %c = memref.alloc(%ratio) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%c : memref<?xf32>)
  %bn = memref.dim %b, %c0 : memref<?xf32>
  %d = memref.alloc(%bn) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%d : memref<?xf32>)
  %k = hip.readback_dim(%ctx, %count) : memref<1xi64> -> index
  %e = memref.alloc(%k) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%e : memref<?xf32>)
  func.return
}

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = memref.dim %x, %c0
// CHECK-NEXT:    %a = memref.alloc(%n) : memref<?xf32>
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %v = memref.load %p[%c0] : memref<1xi64>
// CHECK-NEXT:    %i = arith.index_cast %v : i64 to index
// CHECK-NEXT:    %loaded = arith.muli %i, %n : index
// CHECK-NEXT:    %b = memref.alloc(%loaded)
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %ratio = arith.divui %n, %loaded : index
// CHECK-NEXT:    %c = memref.alloc(%ratio)
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %bn = memref.dim %b, %c0
// CHECK-NEXT:    %d = memref.alloc(%bn)
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %k = hip.readback_dim
// CHECK-NEXT:    %e = memref.alloc(%k)

// -----

// A cone moves whole or not at all: %mixed needs the load, so %dbl (pure, and
// movable on its own) stays where it is too.
func.func @all_or_nothing(%ctx: !hip.context, %x: memref<?xf32>, %p: memref<1xindex>, %zero: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  hip.fill(%ctx, %zero) outs(%a : memref<4xf32>)
  %n = memref.dim %x, %c0 : memref<?xf32>
  %v = memref.load %p[%c0] : memref<1xindex>
  %dbl = arith.addi %n, %n : index
  %mixed = arith.addi %dbl, %v : index
  %b = memref.alloc(%mixed) : memref<?xf32>
  hip.fill(%ctx, %zero) outs(%b : memref<?xf32>)
  func.return
}

// CHECK-LABEL: func.func @all_or_nothing
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    hip.fill
// CHECK-NEXT:    %n = memref.dim %x, %c0
// CHECK-NEXT:    %v = memref.load
// CHECK-NEXT:    %dbl = arith.addi %n, %n : index

// -----

// Reshape's inferred dim `n / max(k, 1)` cannot divide by zero, so it moves up
// too; a division by a bare runtime value could fault and stays.
func.func @safe_division(%ctx: !hip.context, %x: memref<?xf32>, %k: index, %d: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = memref.alloc() : memref<4xf32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  %at_least_one = arith.maxsi %k, %c1 : index
  %rows = arith.divsi %n, %at_least_one : index
  %a = memref.alloc(%rows) : memref<?xf32>
  %risky = arith.divsi %n, %d : index
  %b = memref.alloc(%risky) : memref<?xf32>
  hip.copy(%ctx) ins(%x : memref<?xf32>) outs(%first : memref<4xf32>)
  hip.copy(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  hip.copy(%ctx) ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  func.return
}
// CHECK-LABEL: func.func @safe_division
// CHECK:         %[[ROWS:.*]] = arith.divsi %{{.*}}, %{{.*}} : index
// CHECK:         %first = memref.alloc() : memref<4xf32>
// CHECK:         memref.alloc(%[[ROWS]])
// CHECK:         %risky = arith.divsi
// CHECK-NEXT:    memref.alloc(%risky)
