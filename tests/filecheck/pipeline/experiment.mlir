// An experiment YAML (extends + remove) and the shipping pipeline, through the CLI.

// RUN: xhip-opt %s --pipeline %S/Inputs/no-cleanup.yaml | filecheck %s --check-prefix=EXPERIMENT
// RUN: xhip-opt %s --pipeline %xhip_root/pipelines/default.yaml | filecheck %s --check-prefix=DEFAULT

func.func @main_graph(%x: index) -> index {
  %zero = arith.constant 0 : index
  %y = arith.addi %x, %zero : index
  func.return %y : index
}

// Without canonicalize the x+0 survives; the context argument is there either way.
// EXPERIMENT-LABEL: func.func @main_graph(%{{.*}}: !hip.context, %x: index) -> index
// EXPERIMENT:         arith.addi %x, %zero : index

// DEFAULT-LABEL: func.func @main_graph(%{{.*}}: !hip.context, %x: index) -> index
// DEFAULT-NEXT:    func.return %x : index
