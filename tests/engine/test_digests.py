"""``engine.basics.digests``: the same digests as ``hashlib``, without loading OpenSSL."""

from __future__ import annotations

import hashlib

import pytest

from engine.basics.digests import blake2b, sha256_hex

SAMPLES = [b"", b"/home/ada/projects/payments", "caf\u00e9 \udcff".encode("utf-8", "surrogateescape"),
           bytes(range(256)) * 40]  # fmt: skip


@pytest.mark.parametrize("data", SAMPLES)
def test_sha256_matches_hashlib(data: bytes) -> None:
    """Project ids are sha256 of the real path: a different digest would orphan every index."""
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("data", SAMPLES)
def test_blake2b_matches_hashlib_with_sizes_keys_and_updates(data: bytes) -> None:
    for size in (8, 12, 16):
        assert (
            blake2b(data, digest_size=size).digest()
            == hashlib.blake2b(data, digest_size=size).digest()
        )
    keyed = blake2b(data, key=b"k" * 16, digest_size=8).hexdigest()
    assert keyed == hashlib.blake2b(data, key=b"k" * 16, digest_size=8).hexdigest()
    running = blake2b(digest_size=16)
    running.update(data)
    running.update(b"tail")
    assert running.digest() == hashlib.blake2b(data + b"tail", digest_size=16).digest()
