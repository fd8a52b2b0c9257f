"""Optional C modules: each is the compiled twin of a Python function the product falls back to.

``optional=True``: an install without a compiler (or without Python's headers) still succeeds,
and the product runs the Python twin (README: "Compiled parts").
"""

import os
import sys
import tempfile

from setuptools import Extension, setup

# setuptools' own copy of distutils once setuptools is imported (it keeps no build_scripts).
from distutils.command.build_scripts import build_scripts  # isort: skip

_C_FLAGS = ["-O2", "-Wall", "-Wextra"]

# A fused multiply-add rounds once where the Python twin rounds twice: floats as Python does them.
_FLOAT_FLAGS = [*_C_FLAGS, "-ffp-contract=off"]

LAUNCHER_SOURCE = "native/ade_launcher.c"
PYTHON_ADE = "ade-py"
"""The Python ``ade`` script's installed name where the compiled launcher is ``ade``."""


class BuildScriptsWithLauncher(build_scripts):
    """``scripts/ade`` as usual; on Linux with a C compiler, it is installed as ``ade-py`` and
    ``ade`` is the compiled launcher (native/ade_launcher.c), which answers a plain daemon-answered
    ``ade search`` itself and execs ``ade-py`` for everything else. Runs for the wheel and for the
    editable install alike (both install the scripts through this command); without a compiler
    ``ade`` stays the Python script, as the ext modules stay optional."""

    def run(self) -> None:
        self.force = True  # the copy below is renamed: never skip it as "up to date"
        super().run()
        if not sys.platform.startswith("linux"):
            return
        python_ade = os.path.join(self.build_dir, "ade")
        beside = os.path.join(self.build_dir, PYTHON_ADE)
        os.replace(python_ade, beside)
        try:
            self._compile_launcher(python_ade)
        except Exception as err:  # no compiler, no headers: the Python ade, as before
            print(f"warning: the ade launcher did not build ({err}); ade is the Python script")
            os.replace(beside, python_ade)

    def _compile_launcher(self, target: str) -> None:
        from distutils.ccompiler import new_compiler
        from distutils.sysconfig import customize_compiler

        compiler = new_compiler()
        customize_compiler(compiler)
        version = self.distribution.get_version()
        with tempfile.TemporaryDirectory() as objects:
            built = compiler.compile(
                [LAUNCHER_SOURCE],
                output_dir=objects,
                macros=[("ADE_VERSION", f'"{version}"')],
                extra_postargs=_C_FLAGS,
            )
            compiler.link_executable(built, os.path.basename(target),
                                     output_dir=os.path.dirname(target))  # fmt: skip
        os.chmod(target, 0o755)


setup(
    cmdclass={"build_scripts": BuildScriptsWithLauncher},
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
