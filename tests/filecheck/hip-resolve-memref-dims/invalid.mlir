// RUN: xhip-opt %s -p hip-resolve-memref-dims --split-input-file --verify-diagnostics | filecheck %s

// A constant dim index outside the rank is a user error, reported at the dim.
func.func @out_of_range(%x: memref<?x4xf32>) -> index {
  %c2 = arith.constant 2 : index
  %d = memref.dim %x, %c2 : memref<?x4xf32>
  func.return %d : index
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:3: error: memref.dim index 2 is out of range for memref<?x4xf32> (rank 2)

// -----

func.func @negative(%x: memref<?xf32>) -> index {
  %m1 = arith.constant -1 : index
  %d = memref.dim %x, %m1 : memref<?xf32>
  func.return %d : index
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:3: error: memref.dim index -1 is out of range for memref<?xf32> (rank 1)
