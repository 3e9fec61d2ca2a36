"""Write examples/attention.onnx: the self-attention model of seed 003.

    X [batch, seq, 64] -> q/k/v projections (64x64 weights) -> Q @ K^T * 0.125
      -> Softmax(axis=-1) -> @ V -> out [batch, seq, 64]

The weights are random with a fixed seed (and never zero), so the file is
reproducible byte for byte. The script checks the model with onnx.checker and, when
onnxruntime is installed, runs it against a NumPy evaluation of the same graph.

    python examples/make_attention.py [-o OUTPUT]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 18
HIDDEN = 64
SEED = 3


def build_model() -> onnx.ModelProto:
    rng = np.random.default_rng(SEED)
    weights = {
        name: rng.uniform(0.05, 0.25, size=(HIDDEN, HIDDEN)).astype(np.float32)
        * rng.choice(np.array([-1.0, 1.0], np.float32), size=(HIDDEN, HIDDEN))
        for name in ("w_q", "w_k", "w_v")
    }
    initializers = [numpy_helper.from_array(w, name) for name, w in weights.items()]
    initializers.append(numpy_helper.from_array(np.array(0.125, np.float32), "scale"))
    nodes = [
        helper.make_node("MatMul", ["X", "w_q"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["X", "w_k"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["X", "w_v"], ["v"], name="v_proj"),
        helper.make_node("Transpose", ["k"], ["k_t"], name="k_transpose", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "k_t"], ["scores"], name="qk_matmul"),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="score_scale"),
        helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["out"], name="attn_v"),
    ]
    graph = helper.make_graph(
        nodes,
        "attention",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        initializers,
    )
    # IR version 10: readable by onnxruntime 1.18 and later (onnx 1.23 would stamp 14).
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="xhip-examples", ir_version=10
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    """The model's output computed with NumPy from its own initializers."""
    w = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    q, k, v = x @ w["w_q"], x @ w["w_k"], x @ w["w_v"]
    scores = (q @ k.transpose(0, 2, 1)) * w["scale"]
    probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    return probs @ v


def check_with_onnxruntime(model: onnx.ModelProto) -> None:
    try:
        import onnxruntime as ort
    except ImportError:
        print("onnxruntime is not installed; skipped the run check")
        return
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((2, 5, HIDDEN)).astype(np.float32)
    (out,) = session.run(None, {"X": x})
    np.testing.assert_allclose(out, reference(model, x), rtol=1e-4, atol=1e-5)
    print(f"onnxruntime output {out.shape} matches NumPy")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(Path(__file__).with_name("attention.onnx")))
    args = ap.parse_args()
    model = build_model()
    check_with_onnxruntime(model)
    onnx.save(model, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
