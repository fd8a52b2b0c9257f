"""A generated project for the known-item benchmark (``bench_known_items``): twelve pieces of
work a team really does — each a chat with an agent, a PR with a review, a commit — among
deterministic filler chats and commits built from the same vocabulary, so the words a person
remembers compete with many near misses. Same seed, same project.

Usage: ``python -m benchmarks.known_items_project DIR``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

SEED = 20261206
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

# (session id, chat title, [user text, assistant text, …], PR title, PR body, review, comment)
TOPICS: list[tuple[str, str, list[str], str, str, str, str]] = [
    ("chat-rate-limit", "Rate limit the upload endpoint",
     ["Uploads from one tenant starve everyone else. Add a rate limit to POST /uploads.",
      "A token bucket per tenant: 20 requests a second, bursts of 40, kept in Redis with a Lua "
      "script so the check and the decrement are one atomic step. Over the limit answers 429 "
      "with Retry-After."],
     "Token bucket rate limiter for uploads", "Per-tenant token bucket in Redis (Lua script).",
     "The Lua script reads the clock on the app side; two hosts with skewed clocks refill twice.",
     "Use redis TIME inside the script instead of passing now from Python."),
    ("chat-toml-config", "Move settings from YAML to TOML",
     ["Can we drop PyYAML? The config is flat anyway.",
      "tomllib is in the standard library since 3.11, so settings.toml costs no dependency. I "
      "converted config.yaml, kept the same keys, and made the loader refuse unknown keys so a "
      "typo in a setting fails at startup instead of being ignored."],
     "Settings in TOML, PyYAML removed", "Loader refuses unknown keys.",
     "Refusing unknown keys will break the staging override file; it has a legacy key.",
     "Rename legacy_mode here before this lands."),
    ("chat-memory-leak", "Worker memory grows overnight",
     ["The export worker's RSS climbs from 300 MB to 4 GB overnight. Find the leak.",
      "tracemalloc snapshots an hour apart point at the lru_cache on render_invoice: it is keyed "
      "by the whole order object, so every order stays alive. Caching on the order id with a "
      "bounded maxsize of 1024 keeps memory flat in a six hour soak."],
     "Bound the invoice render cache", "lru_cache keyed by order id, maxsize 1024.",
     "Please add the soak test numbers to the PR body so we can compare after the next release.",
     "maxsize 1024 is a guess; make it a setting."),
    ("chat-flaky-e2e", "Flaky browser test on checkout",
     ["test_checkout_happy_path fails one run in ten on CI with a stale element error.",
      "The page re-renders the pay button after the price loads; the test grabs it before. "
      "Waiting for the network to be idle, then locating the button by role, made it pass 200 "
      "runs in a row under CPU throttling."],
     "Deflake the checkout browser test", "Wait for network idle, locate by role.",
     "Waiting for network idle hides slow pages; assert on the price text instead.",
     "This sleep(2) should go now that we wait properly."),
    ("chat-db-migration", "Add an index for the orders lookup",
     ["The orders-by-customer page takes eight seconds for big customers.",
      "The query filters on customer_id and sorts by created_at, and only the primary key is "
      "indexed, so Postgres scans the table. A composite index on (customer_id, created_at "
      "DESC) created CONCURRENTLY brings it to 12 ms without locking writes."],
     "Composite index for orders by customer", "CREATE INDEX CONCURRENTLY on customer_id.",
     "CONCURRENTLY cannot run inside a transaction; the migration tool wraps every file in one.",
     "Mark this migration atomic = False."),
    ("chat-s3-retries", "Uploads to object storage time out",
     ["Large report uploads to S3 fail with a socket timeout after 60 seconds.",
      "Multipart upload with 16 MB parts and the adaptive retry mode: a failed part is retried "
      "alone instead of restarting the whole file, and the SDK backs off when it is throttled."],
     "Multipart uploads for large reports", "16 MB parts, adaptive retries.",
     "Abort incomplete multipart uploads on failure or we pay for orphaned parts forever.",
     "Add a lifecycle rule for incomplete uploads too."),
    ("chat-feature-flags", "Roll out the new search page gradually",
     ["How do we ship the new search page to 5% of users first?",
      "A percentage flag hashed on the user id, so a user keeps the same variant between "
      "visits; the kill switch is the same flag at zero. Flags live in the settings table and "
      "are cached for thirty seconds."],
     "Percentage rollout flags", "Hashed on user id; zero is the kill switch.",
     "Thirty seconds of cache means the kill switch is not instant; say so in the runbook.",
     "Hash with the flag name too, or every flag picks the same users."),
    ("chat-timezone-bug", "Daily report shows yesterday",
     ["The daily sales report for Sydney shows the previous day's totals.",
      "The report cuts days at midnight UTC. Converting the window to the store's zone with "
      "zoneinfo before truncating to a date fixes Sydney and every zone east of Greenwich."],
     "Cut report days in the store's time zone", "zoneinfo, not UTC midnight.",
     "Daylight saving makes one day 23 hours long; test the April change in Sydney.",
     "Use the store zone from the settings, not the server's."),
    ("chat-dependency-audit", "pip-audit flags a vulnerable package",
     ["pip-audit reports a CVE in our pinned version of the XML parser.",
      "The advisory affects entity expansion; we parse uploaded XML, so it matters. Upgrading to "
      "the patched release and switching to defusedxml for untrusted input closes it; the lock "
      "file is regenerated with hashes."],
     "Patch the XML parser advisory", "defusedxml for uploads, lock regenerated.",
     "Regenerating the whole lock file also bumped twelve unrelated packages; pin them back.",
     "Only the parser should change in this PR."),
    ("chat-grpc-deadline", "Calls to the pricing service hang",
     ["Some requests hang for minutes waiting on the pricing service.",
      "The gRPC stub is called without a deadline, so a stuck server holds the request forever. "
      "A 800 ms deadline per call with one retry on UNAVAILABLE, and a circuit breaker that "
      "opens after five failures in ten seconds."],
     "Deadlines for pricing calls", "800 ms deadline, breaker after five failures.",
     "The breaker state is per process; with 40 workers it takes 200 failures to open anywhere.",
     "Share breaker state or lower the threshold."),
    ("chat-log-noise", "Too many logs from health checks",
     ["Half our log volume is the load balancer hitting /healthz.",
      "A logging filter that drops access lines for /healthz and /readyz at INFO, keeping them "
      "when the status is not 200, cuts the volume by 48% without hiding failures."],
     "Filter health check access logs", "Dropped unless the status is not 200.",
     "Keep one sampled health line a minute so we can still see the checker is alive.",
     "The filter should match the path exactly, not startswith."),
    ("chat-cache-stampede", "Cache expiry takes the database down",
     ["Every hour on the hour the database CPU spikes to 100%.",
      "All product pages share one TTL, so they expire together and every worker recomputes at "
      "once. Jittering the TTL by up to 10% and letting one worker recompute behind a lock while "
      "others serve the stale value removed the spike."],
     "Jittered TTL and single-flight recompute", "Stale while revalidate behind a lock.",
     "The lock has no timeout; a crashed worker keeps everyone on stale data forever.",
     "Give the lock a 30 s expiry."),
]  # fmt: skip

FILLER_WORDS = [
    "upload",
    "tenant",
    "limit",
    "redis",
    "config",
    "settings",
    "worker",
    "memory",
    "cache",
    "report",
    "test",
    "browser",
    "checkout",
    "index",
    "query",
    "orders",
    "customer",
    "migration",
    "storage",
    "timeout",
    "retry",
    "flag",
    "rollout",
    "user",
    "search",
    "zone",
    "daily",
    "sales",
    "package",
    "lock",
    "parser",
    "service",
    "deadline",
    "breaker",
    "logs",
    "health",
    "database",
    "ttl",
    "product",
    "page",
    "price",
    "button",
    "network",
    "deploy",
    "release",
    "staging",
    "prod",
    "latency",
    "error",
    "queue",
    "job",
    "schedule",
    "metrics",
    "alert",
    "dashboard",
    "token",
    "session",
    "api",
    "client",
    "server",
    "request",
    "response",
    "handler",
]


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _git(root: Path, *args: str, when: datetime | None = None) -> None:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "Sam Lee", "GIT_AUTHOR_EMAIL": "sam@example.com",
           "GIT_COMMITTER_NAME": "Sam Lee", "GIT_COMMITTER_EMAIL": "sam@example.com"}  # fmt: skip
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _chat(ade: Path, sid: str, title: str, texts: list[str], at: datetime) -> None:
    meta = {"id": sid, "kind": "chat", "title": title, "laneId": "primary",
            "createdAt": _ts(at), "updatedAt": _ts(at + timedelta(minutes=len(texts))),
            "endedAt": None, "archived": False, "tool": "claude", "command": "claude"}  # fmt: skip
    (ade / "sessions" / f"{sid}.json").write_text(json.dumps(meta))
    lines = [{"seq": 1, "ts": _ts(at), "type": "session_title", "title": title}]
    for i, text in enumerate(texts):
        kind = "user_message" if i % 2 == 0 else "assistant_message"
        event = {"seq": i + 2, "ts": _ts(at + timedelta(minutes=i)), "type": kind,
                 "id": f"msg_{i + 1:04d}", "text": text}  # fmt: skip
        if kind == "user_message":
            event["status"] = "accepted"
        lines.append(event)
    (ade / "chats" / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _filler(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(FILLER_WORDS) for _ in range(words)).capitalize() + "."


def build(root: Path, filler_chats: int = 60) -> Path:
    """Write the project into ``root`` (a new folder): git history, chats and PR snapshots."""
    rng = random.Random(SEED)
    ade = root / ".ade"
    for sub in ("sessions", "chats", "prs"):
        (ade / sub).mkdir(parents=True)
    (ade / "project.json").write_text('{"id": "known-items-gen", "name": "shop"}')
    _git(root, "init", "-q", "-b", "main")
    for n, (sid, title, texts, pr_title, pr_body, review, comment) in enumerate(TOPICS):
        at = START + timedelta(days=n)
        _chat(ade, sid, title, texts, at)
        (root / f"change_{n:02d}.txt").write_text(texts[-1] + "\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"{pr_title}\n\n{pr_body}", when=at)
        pr = {"number": 100 + n, "title": pr_title, "body": pr_body, "state": "MERGED",
              "author": "sam", "headBranch": f"topic-{n}", "baseBranch": "main",
              "url": f"https://github.com/acme/shop/pull/{100 + n}",
              "updatedAt": _ts(at + timedelta(hours=2)), "comments": [],
              "reviews": [{"id": f"PRR_{n:04d}", "author": "ana", "body": review,
                           "state": "CHANGES_REQUESTED", "submittedAt": _ts(at + timedelta(hours=1))}],
              "reviewComments": [{"id": 5000 + n, "reviewId": f"PRR_{n:04d}", "author": "ana",
                                  "body": comment, "path": f"change_{n:02d}.txt", "line": 1,
                                  "createdAt": _ts(at + timedelta(hours=1))}]}  # fmt: skip
        (ade / "prs" / f"{100 + n}.json").write_text(json.dumps(pr))
    for n in range(filler_chats):
        at = START + timedelta(days=n % 30, hours=n % 24)
        texts = [_filler(rng, rng.randint(12, 40)) for _ in range(rng.randint(2, 6))]
        _chat(ade, f"chat-filler-{n:03d}", _filler(rng, 4)[:-1], texts, at)
    for n in range(40):
        (root / "notes.txt").write_text(_filler(rng, 30) + "\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", _filler(rng, 6)[:-1], when=START + timedelta(hours=7 * n))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir", type=Path)
    build(parser.parse_args().dir)


if __name__ == "__main__":
    main()
