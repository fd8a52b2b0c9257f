"""One age rule: the palette's rows and ``ade search``'s text give a hit one age.

The table pins the rule's boundaries against an injected clock; the last test paints the same
real hits (the indexed demo, searched through the real client) both ways and reads the ages back.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.demo import DEMO_NOW
from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs
from tui.logic.ages import relative_time
from tui.logic.merge import search_rows
from tui.search_format import format_hit
from tui.widgets.result_list import row_prompt

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)


def ms_before(delta: timedelta, now: datetime = NOW) -> int:
    return int((now - delta).timestamp() * 1000)


@pytest.mark.parametrize(
    ("delta", "short", "sentence"),
    [
        (timedelta(0), "now", "just now"),
        (timedelta(seconds=59), "now", "just now"),
        (timedelta(seconds=60), "1m", "1m ago"),
        (timedelta(minutes=59, seconds=59), "59m", "59m ago"),
        (timedelta(hours=1), "1h", "1h ago"),
        (timedelta(hours=23, minutes=59), "23h", "23h ago"),
        (timedelta(days=1), "1d", "1d ago"),
        (timedelta(days=6, hours=23), "6d", "6d ago"),
        (timedelta(days=7), "1w", "1w ago"),
        (timedelta(days=15), "2w", "2w ago"),
        (timedelta(days=364), "52w", "52w ago"),
        (timedelta(days=365), "2025-06-15", "2025-06-15"),
        (timedelta(days=400), "2025-05-11", "2025-05-11"),
        (-timedelta(seconds=1), "now", "just now"),  # a clock ahead of ours: never "-1m"
        (-timedelta(minutes=5), "now", "just now"),  # within the skew allowance
        # Further ahead is a wrong clock or record, not "just now": its date.
        (-timedelta(minutes=5, seconds=1), "2026-06-15", "2026-06-15"),
        (-timedelta(days=3), "2026-06-18", "2026-06-18"),
    ],
)
def test_age_table(delta: timedelta, short: str, sentence: str) -> None:
    assert relative_time(ms_before(delta), NOW) == short
    assert relative_time(ms_before(delta), NOW, ago=True) == sentence


def test_no_time_gives_no_age() -> None:
    assert relative_time(None, NOW) == ""
    assert relative_time(None, NOW, ago=True) == ""


def test_the_age_is_read_against_the_injected_clock_and_its_zone() -> None:
    stamp = ms_before(timedelta(days=2))
    assert relative_time(stamp, NOW + timedelta(days=5)) == "1w"  # the clock moved, not the hit
    # A year-old hit shows its date in the clock's zone: 23:30 UTC is the next day in UTC+2.
    late = datetime(2025, 3, 1, 23, 30, tzinfo=UTC)
    east = timezone(timedelta(hours=2))
    stamp = int(late.timestamp() * 1000)
    assert relative_time(stamp, NOW.astimezone(east)) == "2025-03-02"
    assert relative_time(stamp, NOW) == "2025-03-01"


def _cli_age(item_text: str) -> str:
    where = item_text.splitlines()[1].strip()  # "lane · 2d ago · project"
    age = where.split(" · ")[1]
    return "now" if age == "just now" else age.removesuffix(" ago")


def test_a_palette_row_and_the_cli_show_a_hit_with_the_same_age(client: EmbeddedClient) -> None:
    items = client.query(SearchQueryArgs(query="timeout", limit=50)).items
    rows = {row.key: row for row in search_rows(items)}
    ages: dict[str, tuple[str, str]] = {}
    for item in items:
        row = rows.get(item.doc_id)
        if row is None or not (row.lane and item.lane_name):
            continue  # folded into its session's row, or no lane column to read the age after
        painted = row_prompt(row, DEMO_NOW).plain.splitlines()[0]
        palette_age = painted.rsplit(" · ", 1)[1].strip()
        ages[item.doc_id] = (palette_age, _cli_age(format_hit(item, DEMO_NOW, color=False)))
    assert len(ages) >= 5
    assert all(palette == cli for palette, cli in ages.values()), ages
    shown = {palette for palette, _ in ages.values()}
    assert any(age.endswith("w") for age in shown)  # past a week: where the two rules parted
    assert any(age.endswith(("h", "d")) for age in shown)
