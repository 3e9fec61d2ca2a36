"""The tolerances of `xhip-run --check` and the rule they enter, as plain data: the rule's
text is part of `xhip-run --help`, which loads none of the runtime
(`xhip.runtime.check.compare` applies the rule)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Tolerance:
    """How far outputs of one backend may be from the references."""

    factor: float
    """K: xhip's max error against float64 may be K times onnxruntime fp32's."""
    ulps: float
    """The floor: this many units in the last place (of the output dtype) of max |float64 output|,
    so an output onnxruntime computes exactly (error 0) may still be a few roundings off."""
    rtol: float
    """The fixed rule against onnxruntime fp32 (reported always; decides without a float64 run)."""
    atol: float


REFERENCE_TOLERANCE = Tolerance(factor=4, ulps=8, rtol=1e-4, atol=1e-6)
"""NumPy's float32 BLAS and reductions sum in another order than onnxruntime's, with errors
of the same size: xhip's error against float64 is 0.6-1.5x onnxruntime's on GPT-2 and on a
48-layer MatMul/LayerNorm/Tanh chain."""
GPU_TOLERANCE = Tolerance(factor=16, ulps=32, rtol=1e-3, atol=1e-5)
"""On a GPU, fp32 sums run in yet another order (tree reductions, BLAS tiles, FMA): a dot
product of K terms differs by about sqrt(K) ulps of its terms, which near a zero output
(GPT-2's logits over 768-wide rows) is a few 1e-6 absolute. The factor keeps the old 10x
margin of the GPU's fixed tolerance over the CPU's."""
RTOL, ATOL = REFERENCE_TOLERANCE.rtol, REFERENCE_TOLERANCE.atol
def tolerances(backend: str) -> dict[str, float]:
    """The tolerance `compare` applies to outputs computed by `backend` (its `--backend` name)."""
    return asdict(REFERENCE_TOLERANCE if backend == "reference" else GPU_TOLERANCE)


def rule_text() -> str:
    """The rule `compare` applies, as `xhip-run --help` and the run report state it."""
    ref, gpu = REFERENCE_TOLERANCE, GPU_TOLERANCE
    return (
        "For each float output, let f64 be the model run in float64 on the same inputs (onnxruntime's CPU "
        "kernels; onnx.reference where onnxruntime lacks a double kernel), err_xhip = max|xhip-f64| and "
        "err_ort = max|ort32-f64|, ort32 being onnxruntime's fp32 outputs. The output passes when "
        "err_xhip <= K*err_ort + U*eps*max|f64| (eps: the machine epsilon of the output dtype, or of the "
        "narrower float the model computed in), "
        f"K={ref.factor:g} and U={ref.ulps:g} on the reference backend, K={gpu.factor:g} and U={gpu.ulps:g} on a GPU. "
        "The report gives both errors and xhip's error against ort32. float16 and bfloat16 are widened to "
        "float64 too (eps is then the half type's); where onnxruntime has no kernel for a type (bfloat16 on "
        "its CPU provider), ort32 is the float64 run rounded to the outputs' types. Without a float64 run (no engine "
        f"runs the widened model), every element must be within rtol {tolerance_number(ref.rtol)} and atol {tolerance_number(ref.atol)} "
        f"of ort32 (rtol {tolerance_number(gpu.rtol)}, atol {tolerance_number(gpu.atol)} on a GPU). Shapes, dtypes, integer and boolean "
        "outputs and the positions of NaN, +Inf and -Inf must equal onnxruntime's exactly; NaN where "
        "onnxruntime has NaN passes and is left out of the errors."
    )


def tolerance_number(value: float) -> str:
    """1e-4, not 0.0001."""
    return f"{value:.0e}".replace("e-0", "e-")
