"""The known-item benchmark's judge: a chat session row counts as the target message only when
its link opens that message (the session and the event), as the message's own link does."""

from __future__ import annotations

from benchmarks.bench_known_items import _score, lands_on
from engine.links.deeplink import build_link

OPENS = ("chat-flaky", 3)
TARGET = "chat:chat-flaky:msg_0003"


def test_a_session_row_linking_to_the_target_message_counts() -> None:
    link = build_link("chat", "chat-flaky", project_id="p", event=3)
    assert lands_on(OPENS, "chat:chat-flaky", link)
    ranked = [("pr:41", "a PR", ""), ("chat:chat-flaky", "Flaky test", link)]
    assert _score(ranked, TARGET, OPENS) == 2


def test_a_session_row_linking_elsewhere_or_another_session_does_not() -> None:
    other_event = build_link("chat", "chat-flaky", project_id="p", event=1)
    other_session = build_link("chat", "chat-other", project_id="p", event=3)
    assert not lands_on(OPENS, "chat:chat-flaky", other_event)
    assert not lands_on(OPENS, "chat:chat-other", other_session)
    assert not lands_on(
        OPENS, "chat:chat-flaky:msg_0001", build_link("chat", "chat-flaky", event=3)
    )
    assert not lands_on(None, "chat:chat-flaky", build_link("chat", "chat-flaky", event=3))
    ranked = [("chat:chat-flaky", "Flaky test", other_event), (TARGET, "Flaky test", "")]
    assert _score(ranked, TARGET, OPENS) == 2
