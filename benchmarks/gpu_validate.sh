#!/usr/bin/env bash
# Everything the GPU claims rest on, in one run on a machine with an NVIDIA GPU:
# the GPU tests (every test-set model at three shapes under every pipeline and each
# host-visibility strategy, exact pool bytes, graph replay, gather bounds), the test set
# under compute-sanitizer memcheck and racecheck, and the latency/bytes benchmark.
#   bash benchmarks/gpu_validate.sh [OUT_DIR]
set -u
out=${1:-benchmarks/results}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
status=0
python3 -m pytest -q -p no:cacheprovider -m gpu tests --tb=short -rfs 2>&1 | tee "$out/gpu_tests.log" | tail -8 || status=1
for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" python3 benchmarks/gpu_sanitize.py > "$out/sanitize_$tool.log" 2>&1 || status=1
    echo "compute-sanitizer $tool: $(grep -c ' pass$' "$out/sanitize_$tool.log") models pass; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize_$tool.log")"
done
python3 benchmarks/gpu_bench.py --json "$out/gpu_bench.json" 2>&1 | grep -v '^{' | grep -v 'torch.onnx\|Warning\|warn\|copyreg\|return cls' | tail -30 || status=1
exit $status
