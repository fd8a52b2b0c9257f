"""The client's socket and config paths are strings (no ``pathlib`` on a daemon-answered
search, the start-up budget), spelled as the ``Path`` objects were: the 107-byte socket check measures
the same bytes, and the daemon binds where the client connects."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest

from engine.errors import AdeError
from engine.rpc.paths import (
    SOCKET_NAME,
    SUN_PATH_MAX,
    config_dir,
    config_folder,
    runtime_dir,
    runtime_folder,
    socket_file,
    socket_path,
)
from engine.rpc.roles import client_token, ensure_cto_token

SPELLINGS = [
    "/run/user/1",
    "/run/user/1/",
    "/run//user/./1",
    "//net/share",
    "///many/slashes",
    "relative/dir",
    "./here/../there",
    "/",
]


@pytest.mark.parametrize("folder", SPELLINGS)
def test_the_runtime_and_config_strings_are_the_paths_str(folder: str) -> None:
    xdg = {"XDG_RUNTIME_DIR": folder}
    assert runtime_folder(xdg) == str(PurePosixPath(folder) / "ade") == str(runtime_dir(xdg))
    assert socket_file(xdg) == str(PurePosixPath(folder) / "ade" / SOCKET_NAME)
    assert socket_path(xdg) == Path(socket_file(xdg))
    override = {"ADE_RUNTIME_DIR": folder, "ADE_CONFIG_DIR": folder}
    assert runtime_folder(override) == str(PurePosixPath(folder))
    assert config_folder(override) == str(PurePosixPath(folder)) == str(config_dir(override))


def test_the_socket_length_check_counts_the_normalised_bytes() -> None:
    # Doubled slashes that pathlib dropped do not count: the limit is met exactly.
    fits = "/tmp/" + "x" * (SUN_PATH_MAX - len("/tmp/") - len(f"/ade/{SOCKET_NAME}"))
    assert len(socket_file({"XDG_RUNTIME_DIR": fits.replace("/tmp/", "/tmp//")})) == SUN_PATH_MAX
    with pytest.raises(AdeError, match=f"over the {SUN_PATH_MAX}-byte limit"):
        socket_file({"XDG_RUNTIME_DIR": fits + "y"})


def test_the_client_reads_the_token_from_a_string_folder(tmp_path: Path) -> None:
    token = ensure_cto_token(tmp_path / "cfg")
    assert client_token(str(tmp_path / "cfg"), {}) == token
    os.chmod(tmp_path / "cfg" / "cto.token", 0o640)
    assert client_token(str(tmp_path / "cfg"), {}) is None  # a readable secret proves nothing


def test_without_xdg_runtime_dir_the_folder_is_in_the_temporary_folder() -> None:
    """As tmux's ``/tmp/tmux-<uid>``: ``$TMPDIR`` when absolute, else ``/tmp`` (a relative or
    empty ``TMPDIR`` would put the socket wherever the search was typed)."""
    uid = os.getuid()
    assert runtime_folder({}) == f"/tmp/ade-{uid}" == str(runtime_dir({}))
    assert runtime_folder({"TMPDIR": "/var/tmp/me/"}) == f"/var/tmp/me/ade-{uid}"
    assert runtime_folder({"TMPDIR": "tmp"}) == f"/tmp/ade-{uid}"
    assert runtime_folder({"TMPDIR": ""}) == f"/tmp/ade-{uid}"
    assert runtime_folder({"TMPDIR": "/x", "XDG_RUNTIME_DIR": "/run/user/7"}) == "/run/user/7/ade"
