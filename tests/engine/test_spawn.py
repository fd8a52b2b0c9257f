"""``engine.basics.spawn`` starts a child as ``subprocess.Popen`` did for the file delegate's git:
found on ``PATH``, stdout read here, stderr to a file, ``SIGPIPE`` back to its default, the exit
status as ``Popen.returncode`` gives it. Real processes (``sh``), no mocks."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from engine.basics.spawn import Spawned


def _run(script: str, *, devnull_stdin: bool = True) -> tuple[int, bytes, bytes]:
    with tempfile.TemporaryFile() as err:
        proc = Spawned(["sh", "-c", script], dict(os.environ), stderr_fd=err.fileno(),
                       devnull_stdin=devnull_stdin)  # fmt: skip
        out = proc.read_all()
        code = proc.wait()
        err.seek(0)
        return code, out, err.read()


@pytest.mark.parametrize(
    "script",
    ["echo out; echo err >&2; exit 3", "exit 0", "printf 'a\\0b'", "kill -TERM $$", "cat"],
)
def test_the_outcome_is_subprocesss(script: str) -> None:
    done = subprocess.run(["sh", "-c", script], capture_output=True, stdin=subprocess.DEVNULL,
                          check=False)  # fmt: skip
    assert _run(script) == (done.returncode, done.stdout, done.stderr)


def test_a_killed_child_reads_minus_nine_and_its_pipe_ends() -> None:
    with tempfile.TemporaryFile() as err:
        proc = Spawned(["sh", "-c", "echo started; exec sleep 60"], dict(os.environ),
                       stderr_fd=err.fileno(), devnull_stdin=True)  # fmt: skip
        assert os.read(proc.stdout_fd, 100) == b"started\n"
        assert proc.poll() is None
        proc.kill()
        assert proc.read_all() == b""
        assert proc.wait() == -9
        assert proc.poll() == -9
        proc.kill()  # reaped: nothing is signalled


def test_sigpipe_is_the_childs_default_again() -> None:
    """Python ignores ``SIGPIPE``; ``subprocess`` resets it in the child, and so does this: a
    writer after its reader left is ended by the signal, not told EPIPE."""
    code, out, err = _run("yes | head -n 1")
    assert (code, out, err) == (0, b"y\n", b"")


def test_a_missing_program_raises_file_not_found_as_subprocess_does() -> None:
    with pytest.raises(FileNotFoundError) as ours, tempfile.TemporaryFile() as err:
        Spawned(["ade-no-such-program"], dict(os.environ), stderr_fd=err.fileno(),
                devnull_stdin=True)  # fmt: skip
    with pytest.raises(FileNotFoundError) as theirs:
        subprocess.run(["ade-no-such-program"], check=False)
    assert str(ours.value) == str(theirs.value)


def test_stdin_is_devnull_or_this_processs() -> None:
    read_fd, write_fd = os.pipe()
    saved = os.dup(0)
    try:
        os.write(write_fd, b"from the parent\n")
        os.close(write_fd)
        os.dup2(read_fd, 0)
        assert _run("cat", devnull_stdin=False)[1] == b"from the parent\n"
        assert _run("cat", devnull_stdin=True)[1] == b""
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read_fd)


def test_a_git_listing_that_times_out_fails_in_subprocesss_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git_process.run_git`` kills git after ``GIT_TIMEOUT_SECONDS`` and says so as
    ``subprocess.run(timeout=…)`` did (a git that never answers: a shim on ``PATH``)."""
    from engine.delegates import git_process

    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "git").write_text("#!/bin/sh\nexec sleep 60\n")
    (shims / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(git_process, "GIT_TIMEOUT_SECONDS", 0.2)
    with pytest.raises(git_process.FileSearchFailed) as ours:
        git_process.run_git(tmp_path, "ls-files")
    with pytest.raises(subprocess.TimeoutExpired) as theirs:
        subprocess.run(["git", "-C", str(tmp_path), "ls-files"], capture_output=True,
                       timeout=0.2, check=False)  # fmt: skip
    assert str(ours.value) == f"git in {tmp_path} failed: {theirs.value}"
