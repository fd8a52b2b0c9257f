"""The embedding model: WordLlama's ``l2_supercat`` at 256 dimensions, loaded from its wheel.

Why this one (docs/semantic.md has the measurements): it is a static model — a token's vector is
looked up, a text's is the mean of its tokens' — so embedding a thousand documents takes tens of
milliseconds on one core, where all-MiniLM-L6-v2 (the only transformer shipped with its weights
on the registry: as an int8 ONNX file without a tokenizer, or with PyTorch) takes about ten
seconds for the same work here. Its weights (16 MB) and tokenizer sit in the wheel; WordLlama
are read from the installed package folder directly: a missing file is an error, never a fetch.

The model is loaded once per process and held (the daemon keeps it between queries); vectors
are unit length, quantized to int8 (256 bytes a document).
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_ID = "wordllama-l2_supercat-256"
"""Kept with every vector: a vector from another model is never compared with this one's."""

DIMENSIONS = 256
"""WordLlama's default size; smaller truncations lost paraphrase matches in our benchmark."""

MAX_TEXT_CHARS = 1000
"""What of a document is embedded (about 220 tokens of prose): a mean over more tokens says
little more, and tokenizing is most of the cost."""

WEIGHTS_FILE = "weights/l2_supercat_256.safetensors"
TOKENIZER_FILE = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR_KEY = "embedding.weight"
"""Where the wheel keeps the model, and the tensor's name in it."""

_lock = threading.Lock()
_model: _Static | None = None


class _Static:
    """A static embedding model: a token's vector is a row of ``table``; a text's, their mean.

    The same arithmetic as ``WordLlama.embed(norm=True)`` (its inference module: tokens without
    special tokens, mean over the tokens, unit length; a test holds the two equal), loaded with
    ``safetensors`` and ``tokenizers`` alone: importing ``wordllama`` itself brings pydantic and
    requests, 0.7 s of a 1.4 s load, for a configuration we do not need.
    """

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from safetensors import safe_open
        from tokenizers import Tokenizer

        with safe_open(str(folder / WEIGHTS_FILE), framework="np", device="cpu") as weights:
            self.table = np.ascontiguousarray(weights.get_tensor(TENSOR_KEY), dtype=np.float32)
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        encoded = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        lengths = np.array([len(e.ids) for e in encoded], dtype=np.int64)
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        filled = lengths > 0
        if not filled.any():
            return out
        ids = np.concatenate([np.asarray(e.ids, dtype=np.int64) for e in encoded])
        np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
        sums = np.add.reduceat(self.table[ids], starts, axis=0)
        means = sums / lengths[filled, None].astype(np.float32)
        norms = np.linalg.norm(means, axis=1, keepdims=True)
        out[filled] = means / np.maximum(norms, np.float32(1e-12))
        return out


def package_folder() -> Path:
    """The installed ``wordllama`` folder, found without importing the package.

    Raises:
        ModuleNotFoundError: the extra is not installed.
    """
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("wordllama is not installed: pip install 'ade-search[semantic]'")
    return Path(next(iter(spec.submodule_search_locations)))


def _load() -> _Static:
    return _Static(package_folder())


def model() -> _Static:
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

    vectors = model().embed([t[:MAX_TEXT_CHARS] for t in texts])
    quantized: npt.NDArray[np.int8] = np.clip(np.rint(vectors * 127.0), -127, 127).astype(np.int8)
    return quantized


def preload_in_background() -> threading.Thread:
    """Load the model on a thread of its own, so the first query does not wait for it."""
    thread = threading.Thread(target=model, name="ade-semantic-load", daemon=True)
    thread.start()
    return thread
