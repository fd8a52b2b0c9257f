"""The embedding model: WordLlama's ``l2_supercat`` at 256 dimensions, loaded from its wheel.

Why this one (docs/semantic.md has the measurements): it is a static model — a token's vector is
looked up, a text's is the mean of its tokens' — so embedding a thousand documents takes tens of
milliseconds on one core, where all-MiniLM-L6-v2 (the only transformer shipped with its weights
on the registry: as an int8 ONNX file without a tokenizer, or with PyTorch) takes about ten
seconds for the same work here. Its weights (16 MB) and tokenizer sit in the wheel; WordLlama
looks for them in a folder named after the file type, so the package folder is given as its
cache and downloads are disabled: a missing file is an error, never a fetch.

The model is loaded once per process and held (the daemon keeps it between queries); vectors
are unit length, quantized to int8 (256 bytes a document).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_ID = "wordllama-l2_supercat-256"
"""Kept with every vector: a vector from another model is never compared with this one's."""

DIMENSIONS = 256
"""WordLlama's default size; smaller truncations lost paraphrase matches in our benchmark."""

MAX_TEXT_CHARS = 2000
"""What of a document is embedded: a mean over more tokens says little more and costs time."""

_lock = threading.Lock()
_model: Any = None


def _load() -> Any:
    import wordllama
    from wordllama import WordLlama

    folder = Path(wordllama.__file__).parent
    return WordLlama.load(dim=DIMENSIONS, cache_dir=folder, disable_download=True)


def model() -> Any:
    """The loaded model (loaded at the first call, then held by the process)."""
    global _model
    with _lock:
        if _model is None:
            _model = _load()
        return _model


def loaded() -> bool:
    """Whether this process holds the model already (a query then pays no load)."""
    return _model is not None


def embed(texts: list[str]) -> npt.NDArray[np.int8]:
    """Unit vectors of ``texts`` quantized to int8 (row ``i`` for ``texts[i]``)."""
    import numpy as np

    vectors = model().embed([t[:MAX_TEXT_CHARS] for t in texts], norm=True)
    quantized: npt.NDArray[np.int8] = np.clip(np.rint(vectors * 127.0), -127, 127).astype(np.int8)
    return quantized


def preload_in_background() -> threading.Thread:
    """Load the model on a thread of its own, so the first query does not wait for it."""
    thread = threading.Thread(target=model, name="ade-semantic-load", daemon=True)
    thread.start()
    return thread
