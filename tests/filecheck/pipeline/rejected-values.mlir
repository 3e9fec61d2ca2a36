// A value the pass rejects is blamed where it was written: the --set flag or the
// experiment's `set:` line, not the pass's line in pipelines/default.yaml.

// RUN: not xhip-opt %s --pipeline %S/../../../pipelines/default.yaml --set hip-pool-allocs.alignment=3 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG-NOT: default.yaml
// FLAG: --set hip-pool-allocs.alignment=3: error: pass 'hip-pool-allocs': alignment must be a positive power of 2, got 3

// RUN: not xhip-opt %s --pipeline %S/Inputs/bad-set-value.yaml 2>&1 | filecheck %s --check-prefix=SET
// SET: Inputs/bad-set-value.yaml:4: error: pass 'hip-pool-allocs': alignment must be a positive power of 2, got 48

// RUN: not xhip-opt %s --pipeline %S/../../../pipelines/default.yaml --set hip-materialize-host-scalars.max-elements=0 2>&1 | filecheck %s --check-prefix=APPLY
// APPLY: --set hip-materialize-host-scalars.max-elements=0: error: hip-materialize-host-scalars: option max-elements must be >= 1, got 0

func.func @f() {
  func.return
}
