"""Optional C modules: each is the compiled twin of a Python function the product falls back to.

``optional=True``: an install without a compiler (or without Python's headers) still succeeds,
and the product runs the Python twin (README: "Compiled parts").
"""

from setuptools import Extension, setup

_C_FLAGS = ["-O2", "-Wall", "-Wextra"]

# A fused multiply-add rounds once where the Python twin rounds twice: floats as Python does them.
_FLOAT_FLAGS = [*_C_FLAGS, "-ffp-contract=off"]

setup(
    ext_modules=[
        Extension(
            "engine.index._identifiers_c",
            ["engine/index/native/identifiers.c"],
            extra_compile_args=_C_FLAGS,
            optional=True,
        ),
        Extension(
            "engine.terminal._escapes_c",
            ["engine/terminal/native/escapes.c"],
            # -O3: the control check's blocks vectorized (sanitize.python_may_hold_controls).
            extra_compile_args=[*_C_FLAGS, "-O3"],
            optional=True,
        ),
        # A SQLite loadable extension, not a Python module: engine.index.fts_rank loads it.
        Extension(
            "engine.index._fts_rank_key",
            ["engine/index/native/fts_rank_key.c", "engine/index/native/top_keys.c"],
            extra_compile_args=_FLOAT_FLAGS,
            optional=True,
        ),
    ],
)
