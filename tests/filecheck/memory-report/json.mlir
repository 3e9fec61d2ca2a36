// RUN: xhip-opt %s -p hip-record-model-buffers,hip-pool-allocs -o %t.mlir --memory-report %t.json --report-shape n=1000
// RUN: filecheck %s --input-file=%t.json
// RUN: xhip-opt %s -p hip-pool-allocs -o %t.mlir --memory-report %t.md --report-shape n=1000
// RUN: filecheck %s --input-file=%t.md --check-prefix=MD

// %b is sized by %half, a value no graph input names: the report computes it from
// n with the rules hip-pool-allocs recorded (n / 2 = 500), as the runtime would.
func.func @main_graph(%ctx: !hip.context, %x: memref<?xf32> {onnx.dim_params = "0:n", onnx.name = "X"}) -> (memref<?xf32> {onnx.name = "Y"}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %half = arith.divui %n, %c2 : index
  %a = memref.alloc(%n) : memref<?xf32>
  hip.neg(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %b = memref.alloc(%half) : memref<?xf32>
  %head = memref.subview %a[0] [%half] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  hip.copy(%ctx) ins(%head : memref<?xf32, strided<[1]>>) outs(%b : memref<?xf32>)
  %y = hip.alloc_output(%ctx, %half) {out_idx = 0 : i64} : memref<?xf32>
  hip.relu(%ctx) ins(%b : memref<?xf32>) outs(%y : memref<?xf32>)
  func.return %y : memref<?xf32>
}

// CHECK:      "report_shape": {
// CHECK-NEXT:   "n": 1000
// CHECK:      "name": "main_graph",
// CHECK-NEXT: "alignment": 256,
// CHECK-NEXT: "dims": {
// CHECK-NEXT:   "%half": 500,
// CHECK-NEXT:   "n": 1000
// CHECK:      "dim_rules": "builtin.module {{.*}}func.func @dims({{.*}}onnx.name = \"n\"{{.*}}arith.divui
// CHECK:      "buffers": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "index": 0,
// CHECK-NEXT:     "domain": 0,
// CHECK-NEXT:     "first": 4,
// CHECK-NEXT:     "last": 8,
// CHECK-NEXT:     "size": "4*n",
// CHECK-NEXT:     "size_bytes": 4000,
// CHECK-NEXT:     "offset": "0",
// CHECK-NEXT:     "offset_bytes": 0
// CHECK:          "index": 1,
// CHECK-NEXT:     "domain": 0,
// CHECK-NEXT:     "first": 6,
// CHECK-NEXT:     "last": 10,
// CHECK-NEXT:     "size": "4*%half",
// CHECK-NEXT:     "size_bytes": 2000,
// CHECK-NEXT:     "offset": "align_up(4*n, 256)",
// CHECK-NEXT:     "offset_bytes": 4096
// CHECK:      "domains": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "id": 0,
// CHECK-NEXT:     "pool": 0,
// CHECK-NEXT:     "pool_size": "align_up(4*%half, 256) + align_up(4*n, 256)",
// CHECK-NEXT:     "pool_bytes": 6144
// CHECK:      "pool_size": "align_up(4*%half, 256) + align_up(4*n, 256)",
// CHECK-NEXT: "pool_bytes": 6144,
// CHECK-NEXT: "lower_bound": "align_up(4*%half, 256) + align_up(4*n, 256)",
// CHECK-NEXT: "lower_bound_bytes": 6144,
// CHECK:      "pool_over_bound": 1.0

// MD:      ## @main_graph at n=1000
// MD:      | #0 | 0 | 4..8 | `4*n` | 4000 | `0` | 0 |
// MD-NEXT: | #1 | 0 | 6..10 | `4*%half` | 2000 | `align_up(4*n, 256)` | 4096 |
// MD:      | pool | `align_up(4*%half, 256) + align_up(4*n, 256)` | 6144 |
// MD-NEXT: | lower bound (model) | - | - |
