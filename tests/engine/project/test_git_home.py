"""git runs in the ``HOME`` of the request or service it works for: a daemon answers callers of
another ``HOME`` than its own, and their ``~/.gitconfig`` is what their git reads — on the
request's thread, on the threads a request starts, and on a service's own threads (its writer,
watcher and timers), which a request opens and which outlive it (real git, real threads)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from engine.basics.caller_env import caller_context, carried, serving
from engine.ingest.timers import ThreadTimerFactory
from engine.project.git import GitError, run_git
from tests.conftest import git

CALLER = "Caller Of The Daemon"

Wrap = Callable[[Callable[..., None]], Callable[..., None]]


def _user_name(repo: Path) -> str | None:
    try:
        return run_git(repo, "config", "--get", "user.name").strip()
    except GitError:
        return None


def _on_thread(repo: Path, wrap: Wrap) -> str | None:
    """What git answers on a new thread whose target is ``wrap``-ped."""
    seen: list[str | None] = []
    thread = threading.Thread(target=wrap(lambda: seen.append(_user_name(repo))))
    thread.start()
    thread.join()
    return seen[0]


def _bare(target: Callable[..., None]) -> Callable[..., None]:
    return target


def test_git_reads_the_callers_gitconfig_on_every_thread_that_works_for_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    home = tmp_path / "caller"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[user]\n\tname = {CALLER}\n")
    own = _user_name(repo)
    assert own != CALLER
    context = {**caller_context(), "HOME": str(home)}
    nested: list[str | None] = []
    timed: list[str | None] = []
    done = threading.Event()

    def later() -> None:
        timed.append(_user_name(repo))
        done.set()

    timers = ThreadTimerFactory()
    with serving(context):
        assert _user_name(repo) == CALLER
        assert _on_thread(repo, carried) == CALLER  # a lane's git grep on a thread of its own
        assert _on_thread(repo, _bare) == own  # an uncarried thread: the daemon's own HOME
        # A service's writer, opened by this request, starting a thread of its own later.
        writer = threading.Thread(target=carried(lambda: nested.append(_on_thread(repo, carried))))
        timers.call_later(0.0, later)  # the ingest queue's timers
    writer.start()  # after the request ended
    writer.join()
    assert done.wait(10)
    timers.close()
    assert nested == [CALLER]
    assert timed == [CALLER]
    assert _user_name(repo) == own  # this thread, outside any request: the process's own
