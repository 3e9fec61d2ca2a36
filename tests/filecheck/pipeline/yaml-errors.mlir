// Pipeline mistakes end as one located line on stderr, exit code 1, and no traceback.

// RUN: not xhip-opt %s --pipeline %S/Inputs/bad-pass.yaml 2>&1 | filecheck %s --check-prefix=PASS
// PASS-NOT: Traceback
// PASS: Inputs/bad-pass.yaml:6: error: unknown pass 'hip-add-contxt-arg'; did you mean 'hip-add-context-arg'?
// PASS-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %S/Inputs/bad-option.yaml 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION-NOT: Traceback
// OPTION: Inputs/bad-option.yaml:4: error: pass 'cse' has no option 'foo'; it takes no options
// OPTION-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %S/Inputs/bad-option-type.yaml 2>&1 | filecheck %s --check-prefix=TYPE
// TYPE-NOT: Traceback
// TYPE: Inputs/bad-option-type.yaml:4: error: option 'externalize-min-num-elements' of 'hip-externalize-constants' expects int, got 'many' (str)
// TYPE-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %S/Inputs/bad-extends.yaml 2>&1 | filecheck %s --check-prefix=EXTENDS
// EXTENDS-NOT: Traceback
// EXTENDS: Inputs/bad-extends.yaml:3: error: 'extends' target '{{.*}}pipelines/defualt.yaml' does not exist; did you mean '../../../../pipelines/default.yaml'?
// EXTENDS-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %S/Inputs/cycle-a.yaml 2>&1 | filecheck %s --check-prefix=CYCLE
// CYCLE-NOT: Traceback
// CYCLE: Inputs/cycle-b.yaml:2: error: 'extends' cycle: {{.*}}Inputs/cycle-a.yaml -> {{.*}}Inputs/cycle-b.yaml -> {{.*}}Inputs/cycle-a.yaml
// CYCLE-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %S/Inputs/malformed.yaml 2>&1 | filecheck %s --check-prefix=YAML
// YAML-NOT: Traceback
// YAML: Inputs/malformed.yaml:5: error: malformed YAML: expected ',' or ']', but got '<stream end>'
// YAML-NOT: Traceback

// RUN: not xhip-opt %s -p 'hip-add-context-arg,cse{foo=1}' 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC-NOT: Traceback
// SPEC: -p: error: pass 'cse' has no option 'foo'; it takes no options
// SPEC-NOT: Traceback

// RUN: not xhip-opt %s --pipeline %xhip_root/pipelines/default.yaml --set dce.foo=1 2>&1 | filecheck %s --check-prefix=SET
// SET-NOT: Traceback
// SET: --set: error: pass 'dce' is not in the pipeline; did you mean 'cse'?
// SET-NOT: Traceback

func.func @f() {
  func.return
}
