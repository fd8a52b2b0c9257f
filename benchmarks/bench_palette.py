"""Palette benchmarks, each a ratio measured in one run.

1. First paint of the palette on the demo project vs a minimal Textual app with one Input and
   one OptionList — both in fresh processes (imports included), headless, exiting after the first
   frame. Goal <= 1.5x.
2. Keystroke → local results painted with 10,000 local items vs the same kind of app painting a
   static list of 10,000 options; plus the matching alone, which must fit in one 60 Hz frame.
   Goal <= 1.2x.
3. Opening the scrollback screen in the middle of a 200 MB transcript vs at offset 0, with the
   peak memory of each. Goal <= 1.5x, memory bounded.

Run: ``python -m benchmarks.bench_palette [--append]`` (``--append`` adds the
table to ``benchmarks/RESULTS.md`` under ``## Palette on the demo``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results import replace_section
from benchmarks.timing import Stopwatch, rounds, timed

RUNS = 5
"""Repetitions per measurement; the median is reported (a shared 2-core box is noisy)."""

ITEMS = 10_000
"""Local items for the keystroke benchmark (the issue's figure)."""

BIG_BYTES = 200 * 1024 * 1024
"""Size of the generated transcript for the scrollback benchmark."""

FRAME_MS = 1000 / 60
"""One 60 Hz frame."""


# --- child processes for first paint -------------------------------------------------------


def _child(kind: str, root: str) -> None:
    started = time.perf_counter()
    from textual.app import App, ComposeResult
    from textual.widgets import Input, OptionList

    if kind == "minimal":

        class Minimal(App[None]):
            def compose(self) -> ComposeResult:
                yield Input(placeholder="search")
                yield OptionList(*[f"item {i}" for i in range(20)])

        app: Any = Minimal()
    else:
        # Exactly what `ade palette --project ROOT --no-daemon --no-watch` builds: only Textual
        # and the app are imported here; the engine is imported and the index opened by the
        # app on a thread once the palette is on screen.
        from tui.commands import palette as command

        parser = argparse.ArgumentParser()
        command.configure(parser)
        app = command.build_app(parser.parse_args(["--project", root, "--no-daemon",
                                                   "--no-watch"]))  # fmt: skip

    painted: list[float] = []
    original = App._display

    def display(self: Any, screen: Any, renderable: Any) -> None:
        # First paint = the first frame composited with the query input (and, for the palette,
        # the footer) laid out on screen: what a user sees first.
        if not painted and renderable is not None and _shows_input(screen, kind):
            painted.append((time.perf_counter() - started) * 1000)
        original(self, screen, renderable)

    App._display = display  # type: ignore[method-assign]

    async def first_paint(pilot: Any) -> None:
        while not painted:
            await pilot.pause(0.001)
        if kind == "minimal":
            print(f"{painted[0]:.1f}", flush=True)
        else:  # then the time until the project is open and its local items are painted
            while pilot.app.project_id is None:
                await pilot.pause(0.005)
            await pilot.pause()
            print(f"{painted[0]:.1f} {(time.perf_counter() - started) * 1000:.1f}", flush=True)
        pilot.app.exit()

    app.run(headless=True, size=(120, 40), auto_pilot=first_paint)
    if kind != "minimal":
        app.clients.close()


def _shows_input(screen: Any, kind: str) -> bool:
    from textual.widgets import Input

    inputs = screen.query(Input)
    if not inputs or inputs.first().region.area == 0:
        return False
    if kind == "minimal":
        return True
    footer = screen.query_one("#status-bar")
    return footer.region.area > 0 and "opening…" in str(screen.query_one("#status").render())


def first_paint(root: Path) -> tuple[float, float, float]:
    """Median ms from the child's first line (before any import of ours or Textual's) to its
    first frame: (palette, minimal, palette with the project open and local items painted).
    Interpreter start-up and exit are the same for both and left out. Runs are interleaved so
    load on the shared machine hits both alike."""

    def once(kind: str) -> list[float]:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_palette", "--child", kind, str(root)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        return [float(x) for x in done.stdout.split()[-2 if kind == "palette" else -1 :]]

    ready: list[float] = []

    def palette() -> float:
        paint, opened = once("palette")
        ready.append(opened)
        return paint

    samples = rounds({"palette": palette, "minimal": lambda: once("minimal")[0]}, RUNS)
    return (
        statistics.median(samples["palette"]),
        statistics.median(samples["minimal"]),
        statistics.median(ready),
    )


async def _workers_done(app: Any) -> None:
    """Wait for every worker; a cancelled one (a superseded search, the status poll when the
    screen changes) is done too, not a failure of the benchmark."""
    from textual.worker import WorkerCancelled, WorkerFailed

    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()


# --- keystroke with 10,000 local items ------------------------------------------------------


async def _keystrokes(root: Path) -> tuple[float, float, float]:
    from textual.app import App, ComposeResult
    from textual.widgets import OptionList

    from engine.demo import DEMO_NOW
    from engine.embedded import EmbeddedClient
    from tui.app import PaletteApp
    from tui.logic.fuzzy import LocalItem, match_local

    items = [
        LocalItem(f"k{i}", "chat", f"session {i} about topic {i % 97} and lane {i % 13}",
                  updated_at_ms=i)
        for i in range(ITEMS)
    ]  # fmt: skip
    queries = ["t", "to", "top", "topi", "topic", "topic 4", "topic 42"]
    match_ms = statistics.median(
        timed(lambda q=q: match_local(q, items))[0] * 1000 for q in queries for _ in range(RUNS)
    )

    client = EmbeddedClient.open(root, clock=lambda: DEMO_NOW, start_worker=False)
    app = PaletteApp(client, clock=lambda: DEMO_NOW, preview=False, debounce_seconds=3600)
    per_key: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await _workers_done(app)
        await pilot.pause()
        app.local_items = items
        for _ in range(RUNS):
            for char in "topic 42":
                with Stopwatch() as watch:
                    await pilot.press(char)
                    await pilot.pause()
                per_key.append(watch.ms)
            await pilot.press(*["backspace"] * 8)
        app.finish(None)
    client.close()

    class Static(App[None]):
        def compose(self) -> ComposeResult:
            yield OptionList()

    static: list[float] = []
    async with Static().run_test(size=(120, 40)) as pilot:
        options = [f"session {i} about topic {i % 97}" for i in range(ITEMS)]
        for _ in range(RUNS):
            with Stopwatch() as watch:
                pilot.app.query_one(OptionList).set_options(options)
                await pilot.pause()
            static.append(watch.ms)
    return statistics.median(per_key), statistics.median(static), match_ms


# --- scrollback in a 200 MB transcript ------------------------------------------------------


def _big_transcript(folder: Path) -> Path:
    path = folder / "big.log"
    block = b"".join(
        b"\x1b[32mINFO\x1b[0m 127.0.0.1 - GET /payments/%06d HTTP/1.1 200 %s\n"
        % (i, b"x" * (i % 40))
        for i in range(20_000)
    )
    with path.open("wb") as handle:
        while handle.tell() < BIG_BYTES:
            handle.write(block)
    return path


async def _scrollback(path: Path, size: int, root: Path) -> tuple[float, float, float, float]:
    from engine.demo import DEMO_NOW
    from engine.embedded import EmbeddedClient
    from tui.app import PaletteApp
    from tui.screens.scrollback import ScrollbackScreen

    client = EmbeddedClient.open(root, clock=lambda: DEMO_NOW, start_worker=False)
    app = PaletteApp(client, clock=lambda: DEMO_NOW, preview=False)
    times: dict[int, list[float]] = {0: [], size // 2: []}
    peaks: dict[int, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await _workers_done(app)
        for offset in times:
            before = _rss_mb()
            for _ in range(RUNS):
                with Stopwatch() as watch:
                    await app.push_screen(ScrollbackScreen(path, offset, "payments", "big"))
                    await _workers_done(app)
                    await pilot.pause()
                times[offset].append(watch.ms)
                app.pop_screen()
                await pilot.pause()
            peaks[offset] = _rss_mb() - before
        app.finish(None)
    client.close()
    mid, zero = (statistics.median(v) for v in reversed(list(times.values())))
    return mid, zero, max(peaks.values()), _rss_mb()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- report ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("KIND", "ROOT"), help=argparse.SUPPRESS)
    parser.add_argument("--append", action="store_true", help="write into benchmarks/RESULTS.md")
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    from engine.demo import DEMO_NOW, build_demo
    from engine.embedded import EmbeddedClient

    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "demo"
        build_demo(root)
        with EmbeddedClient.open(root, clock=lambda: DEMO_NOW, start_worker=False) as client:
            client.service.catch_up()
        paint, minimal, ready = first_paint(root)
        key, static, match_ms = asyncio.run(_keystrokes(root))
        big = _big_transcript(Path(temp))
        mid, zero, grew, rss = asyncio.run(_scrollback(big, big.stat().st_size, root))
        shutil.rmtree(root, ignore_errors=True)
    rows = [
        ("first paint: palette on the demo vs Input+OptionList app", paint, minimal, 1.5),
        (f"keystroke → {ITEMS:,} local items painted vs static {ITEMS:,}-option list", key,
         static, 1.2),
        ("scrollback open mid 200 MB vs at offset 0", mid, zero, 1.5),
    ]  # fmt: skip
    lines = [
        "## Palette on the demo",
        "",
        f"`python -m benchmarks.bench_palette`, median of {RUNS}, {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}.",
        "",
        "| measurement | ours ms | baseline ms | ratio | goal |",
        "|---|---:|---:|---:|---:|",
        *(f"| {n} | {a:.1f} | {b:.1f} | {a / b:.2f}x | <= {g}x |" for n, a, b, g in rows),
        "",
        f"- first paint is the first composited frame with the query input laid out and, for "
        f"the palette, the footer reading `opening…` (probe on `App._display`, the same for "
        f"both apps); both child processes are timed from their first line, imports included. "
        f"`ade palette` imports only Textual and the app before it; the engine is imported "
        f"and the index opened on a thread after that frame: local items painted at "
        f"{ready:.1f} ms median ({ready / minimal:.2f}x the minimal app's first paint). "
        f"Earlier runs opened the engine before the first frame (1.95x).",
        f"- local fuzzy matching alone over {ITEMS:,} items: {match_ms:.2f} ms median per "
        f"keystroke (one 60 Hz frame is {FRAME_MS:.1f} ms).",
        f"- scrollback memory: max RSS grew {grew:.0f} MB while opening a 200 MB transcript "
        f"10 times (process max RSS {rss:.0f} MB): only a window of the file is read.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.append:
        replace_section("## Palette on the demo", text)


if __name__ == "__main__":
    main()
