// RUN: xhip-opt %s -p one-shot-bufferize --split-input-file | filecheck %s

// A tensor built on the host is a small buffer filled by host stores (what
// hip-materialize-host-scalars moves to host scratch); a payload scalar the host
// needs is a memref.load (hip-lower-host-visibility decides how it becomes visible).
func.func @host_values(%ctx: !hip.context, %a: i64, %b: i64) -> (tensor<2xi64>, index) {
  %t = tensor.from_elements %a, %b : tensor<2xi64>
  %e = tensor.empty() : tensor<2xi64>
  %n = hip.neg(%ctx) ins(%t : tensor<2xi64>) outs(%e : tensor<2xi64>) -> tensor<2xi64>
  %c1 = arith.constant 1 : index
  %v = tensor.extract %n[%c1] : tensor<2xi64>
  %i = arith.index_cast %v : i64 to index
  func.return %n, %i : tensor<2xi64>, index
}
// CHECK-LABEL: func.func @host_values
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %c1 = arith.constant 1 : index
// CHECK:         %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2xi64>
// CHECK-NEXT:    memref.store %a, %[[T]][%[[C0]]] : memref<2xi64>
// CHECK-NEXT:    memref.store %b, %[[T]][%c1] : memref<2xi64>
// CHECK-NEXT:    %[[N:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2xi64>
// CHECK-NEXT:    hip.neg(%ctx) ins(%[[T]] : memref<2xi64>) outs(%[[N]] : memref<2xi64>)
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[N]][%c1] : memref<2xi64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK-NEXT:    func.return %[[N]], %[[I]] : memref<2xi64>, index

// -----

// A 2-D from_elements stores in row-major order.
func.func @matrix(%ctx: !hip.context, %a: f32, %b: f32, %c: f32, %d: f32) -> tensor<2x2xf32> {
  %t = tensor.from_elements %a, %b, %c, %d : tensor<2x2xf32>
  func.return %t : tensor<2x2xf32>
}
// CHECK-LABEL: func.func @matrix
// CHECK:         %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2xf32>
// CHECK-NEXT:    memref.store %a, %[[T]][%[[Z:.*]], %[[Z]]] : memref<2x2xf32>
// CHECK-NEXT:    memref.store %b, %[[T]][%[[Z]], %[[O:.*]]] : memref<2x2xf32>
// CHECK-NEXT:    memref.store %c, %[[T]][%[[O]], %[[Z]]] : memref<2x2xf32>
// CHECK-NEXT:    memref.store %d, %[[T]][%[[O]], %[[O]]] : memref<2x2xf32>

// -----

// NonZero as the converter emits it: the indices of a capacity buffer, the count read
// on the host, the valid columns sliced (a strided view) and returned as a copy
// sized by the count.
func.func @nonzero(%ctx: !hip.context, %x: tensor<?x?xi1>) -> tensor<2x?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xi1>
  %c = tensor.dim %x, %c1 : tensor<?x?xi1>
  %cap = arith.muli %r, %c : index
  %ie = tensor.empty(%cap) : tensor<2x?xi64>
  %ce = tensor.empty() : tensor<i64>
  %idx, %cnt = hip.nonzero(%ctx) ins(%x : tensor<?x?xi1>) outs(%ie, %ce : tensor<2x?xi64>, tensor<i64>) -> tensor<2x?xi64>, tensor<i64>
  %n64 = tensor.extract %cnt[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %valid = tensor.extract_slice %idx[0, 0] [2, %n] [1, 1] : tensor<2x?xi64> to tensor<2x?xi64>
  func.return %valid : tensor<2x?xi64>
}
// CHECK-LABEL: func.func @nonzero
// CHECK:         %[[CAP:.*]] = arith.muli
// CHECK-NEXT:    %[[IDX:.*]] = memref.alloc(%[[CAP]]) {alignment = 64 : i64} : memref<2x?xi64>
// CHECK-NEXT:    %[[CNT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<i64>
// CHECK-NEXT:    hip.nonzero(%ctx) ins(%x : memref<?x?xi1>) outs(%[[IDX]], %[[CNT]] : memref<2x?xi64>, memref<i64>)
// CHECK-NEXT:    %[[N64:.*]] = memref.load %[[CNT]][] : memref<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[N64]] : i64 to index
// CHECK-NEXT:    %[[VALID:.*]] = memref.subview %[[IDX]][0, 0] [2, %[[N]]] [1, 1] : memref<2x?xi64> to memref<2x?xi64, strided<[?, 1]>>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<2x?xi64>
// CHECK-NEXT:    "memref.copy"(%[[VALID]], %[[OUT]])
// CHECK-NEXT:    func.return %[[OUT]] : memref<2x?xi64>
