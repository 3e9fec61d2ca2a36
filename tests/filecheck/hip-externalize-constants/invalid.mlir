// RUN: not xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: rm -rf %t && mkdir -p %t
// RUN: not xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=1}' -o %t/out.mlir 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: %python -c "import os, sys; print(os.listdir(sys.argv[1]))" %t | filecheck %s --check-prefix=NOTHING

// NEGATIVE: error: hip-externalize-constants: externalize-min-num-elements must be >= 0, got -1
// NEGATIVE-NOT: Traceback

// A module that already names a constants file is not externalized again: the
// new file would overwrite the one its globals point into.
builtin.module attributes {hip.constants_file = "model.constants.bin"} {
  func.func @f() -> tensor<2xf32> {
    %w = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    func.return %w : tensor<2xf32>
  }
}
// TWICE: {{.*}}invalid.mlir:[[# @LINE - 6]]:1: error: module already has hip.constants_file; externalizing again would overwrite the constants file it names
// NOTHING: []
