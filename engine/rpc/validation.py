"""Strict decoding of JSON-RPC 2.0 frames (RELIABILITY 23).

Python's ``json`` is permissive in ways that matter here: it accepts ``NaN`` and ``Infinity``,
turns ``1e400`` into ``inf``, keeps the *last* of duplicate keys (a way to smuggle a second
``callerScope`` past a filter that looked at the first), and recurses without a depth limit of its
own. Every one of those is refused here, before any method sees the message.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from engine.basics.text import replace_surrogates_in
from engine.errors import (  # below rpc and actions alike: both raise them
    FORBIDDEN,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    SERVER_BUSY,
    RpcError,
)

MAX_DEPTH = 16
"""Deepest nesting accepted; real requests are 2 deep (envelope → params → kinds list)."""

MAX_BATCH = 32
"""Largest batch: a front end never sends more than a handful of requests at once."""

MAX_INT = 2**53
"""Largest integer magnitude: beyond this JSON numbers stop being exact in other languages."""

_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``-``\\uDFFF`` escape: the only way JSON text spells a surrogate (a pair is fine,
a lone one is not; the value is scanned only when this matches)."""

MAX_ID_CHARS = 128
"""Longest string request id; ids are echoed back, so they must stay small."""


RequestId = str | int | None


@dataclass(frozen=True, slots=True)
class Request:
    """One validated request. ``is_notification`` requests get no response."""

    id: RequestId
    method: str
    params: dict[str, Any]
    is_notification: bool


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _parse_int(text: str) -> int:
    if len(text) > 20:
        raise ValueError(f"number {text[:40]}… is out of range")
    value = int(text)
    if abs(value) > MAX_INT:
        raise ValueError(f"number {text} is out of range")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _depth(value: Any) -> int:
    """Nesting depth of a decoded value, iteratively (no recursion to exhaust)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def decode_frame(frame: bytes) -> Any:
    """Decode one frame's JSON strictly.

    Raises:
        RpcError: ``PARSE_ERROR`` for anything that is not strict, finite, shallow JSON.
    """
    try:
        text = frame.decode("utf-8")
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
        )
    except UnicodeDecodeError:
        raise RpcError(PARSE_ERROR, "parse error: frame is not UTF-8") from None
    except RecursionError:
        raise RpcError(PARSE_ERROR, f"parse error: nesting deeper than {MAX_DEPTH}") from None
    except ValueError as err:  # JSONDecodeError is a ValueError; so are the hooks' refusals
        raise RpcError(PARSE_ERROR, f"parse error: {err}") from None
    if _depth(value) > MAX_DEPTH:
        raise RpcError(PARSE_ERROR, f"parse error: nesting deeper than {MAX_DEPTH}")
    if _ESCAPED_SURROGATE.search(text):
        # ``"\ud800"`` parses to a lone surrogate that nothing can encode (not SQLite, not the
        # answer echoing it): text, with U+FFFD (text that cannot be encoded).
        value = replace_surrogates_in(value)
    return value


def request_id_of(message: Any) -> RequestId:
    """The id to echo in an error for ``message``, or ``None`` when it has no usable id."""
    if isinstance(message, dict):
        value = message.get("id")
        if _valid_id(value):
            return value
    return None


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        return len(value) <= MAX_ID_CHARS
    return value is None or isinstance(value, int)


def parse_request(message: Any) -> Request:
    """Validate one decoded message as a JSON-RPC 2.0 request.

    Raises:
        RpcError: ``INVALID_REQUEST`` for a malformed envelope, ``INVALID_PARAMS`` for params
        that are neither absent nor an object.
    """
    if not isinstance(message, dict):
        raise RpcError(INVALID_REQUEST, "invalid request: expected a JSON object")
    unknown = set(message) - {"jsonrpc", "id", "method", "params"}
    if unknown:
        raise RpcError(INVALID_REQUEST, f"invalid request: unknown member {sorted(unknown)[0]!r}")
    if message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"')
    if "id" in message and not _valid_id(message["id"]):
        raise RpcError(INVALID_REQUEST, "invalid request: id must be a string, integer or null")
    method = message.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'invalid request: "method" must be a non-empty string')
    params = message.get("params", {})
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "invalid params: params must be an object (by name)")
    return Request(
        id=message.get("id"),
        method=method,
        params=params,
        is_notification="id" not in message,
    )


def split_batch(message: Any) -> tuple[list[Any], bool]:
    """Return ``(messages, is_batch)``; refuse an empty or oversized batch.

    Raises:
        RpcError: ``INVALID_REQUEST``.
    """
    if not isinstance(message, list):
        return [message], False
    if not message:
        raise RpcError(INVALID_REQUEST, "invalid request: empty batch")
    if len(message) > MAX_BATCH:
        raise RpcError(INVALID_REQUEST, f"invalid request: batch larger than {MAX_BATCH}")
    return message, True


def error_object(request_id: RequestId, error: RpcError) -> dict[str, Any]:
    """The JSON-RPC response for ``error``."""
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def result_object(request_id: RequestId, result: Any) -> dict[str, Any]:
    """The JSON-RPC response carrying ``result``."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


__all__ = [
    "FORBIDDEN",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REQUEST_CANCELLED",
    "SERVER_BUSY",
    "RpcError",
]
