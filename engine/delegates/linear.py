"""Linear issues, asked at query time over Linear's GraphQL API (opt-in, DESIGN §5).

Consulted only when a query asks for ``kind:linear`` / ``kind:issue`` and an API key is configured
(``LINEAR_API_KEY`` or ``ADE_LINEAR_API_KEY``), because it reaches the network. A short timeout
keeps a slow Linear from stalling the whole answer; any failure (timeout, HTTP error, GraphQL
``errors``, a malformed body) yields no issues and one warning line, never a failed query.

``ADE_LINEAR_API_URL`` overrides the endpoint; the tests point it at a local HTTP server that
answers as Linear does. The standard library's ``urllib`` is enough for one POST a query, so no
HTTP client dependency is added.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime

LINEAR_API_URL = "https://api.linear.app/graphql"
LINEAR_TIMEOUT_SECONDS = 2.5
"""Long enough for a healthy round trip from most places, short enough that a query stays usable."""

MAX_LINEAR_RESULTS = 25
"""The palette and a page of CLI results never show more than this from one remote source."""

SEARCH_ISSUES_QUERY = """
query AdeSearch($term: String!, $first: Int!) {
  searchIssues(term: $term, first: $first) {
    nodes { identifier title description url updatedAt state { name } }
  }
}
""".strip()

RECENT_ISSUES_QUERY = """
query AdeRecent($first: Int!) {
  issues(first: $first, orderBy: updatedAt) {
    nodes { identifier title description url updatedAt state { name } }
  }
}
""".strip()
"""An empty query's browse: the issues updated last (``orderBy: updatedAt`` is newest first)."""


@dataclass(frozen=True, slots=True)
class LinearIssue:
    identifier: str
    title: str
    description: str
    url: str
    state: str
    updated_at: datetime


class LinearUnavailable(Exception):
    """Linear did not answer usefully; the message is one line for the query's warnings."""


def linear_api_key(environ: dict[str, str] | None = None) -> str | None:
    """The configured API key, or ``None`` when Linear is not set up."""
    env = os.environ if environ is None else environ
    return env.get("ADE_LINEAR_API_KEY") or env.get("LINEAR_API_KEY") or None


def search_linear(
    term: str,
    *,
    api_key: str,
    url: str | None = None,
    timeout: float = LINEAR_TIMEOUT_SECONDS,
    first: int = MAX_LINEAR_RESULTS,
) -> list[LinearIssue]:
    """Run Linear's issue search for ``term``.

    Raises:
        LinearUnavailable: timeout, connection or HTTP error, GraphQL errors, or a body that is
            not the expected shape.
    """
    variables = {"term": term, "first": first}
    body = _post(SEARCH_ISSUES_QUERY, variables, api_key=api_key, url=url, timeout=timeout)
    return _parse_search_body(body)


def recent_linear(
    *,
    api_key: str,
    url: str | None = None,
    timeout: float = LINEAR_TIMEOUT_SECONDS,
    first: int = MAX_LINEAR_RESULTS,
) -> list[LinearIssue]:
    """Linear's most recently updated issues (an empty query's browse).

    Raises:
        LinearUnavailable: as ``search_linear``.
    """
    body = _post(RECENT_ISSUES_QUERY, {"first": first}, api_key=api_key, url=url, timeout=timeout)
    return _parse_search_body(body, field="issues")


def _post(
    query: str, variables: dict[str, object], *, api_key: str, url: str | None, timeout: float
) -> bytes:
    endpoint = url or os.environ.get("ADE_LINEAR_API_URL") or LINEAR_API_URL
    payload = json.dumps({"query": query, "variables": variables}).encode()
    request = urllib.request.Request(
        endpoint,
        data=payload,
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": api_key},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return bytes(response.read(4 * 1024 * 1024))
    except urllib.error.HTTPError as err:
        raise LinearUnavailable(f"Linear answered HTTP {err.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise LinearUnavailable(f"Linear did not answer ({reason})") from None


def _parse_search_body(body: bytes, field: str = "searchIssues") -> list[LinearIssue]:
    try:
        document = json.loads(body)
    except ValueError:
        raise LinearUnavailable("Linear answered with something that is not JSON") from None
    if not isinstance(document, dict):
        raise LinearUnavailable("Linear answered with an unexpected shape")
    if document.get("errors"):
        first = document["errors"][0] if isinstance(document["errors"], list) else {}
        message = first.get("message", "error") if isinstance(first, dict) else "error"
        raise LinearUnavailable(f"Linear refused the search: {message}")
    try:
        nodes = document["data"][field]["nodes"]
    except (KeyError, TypeError):
        raise LinearUnavailable("Linear answered with an unexpected shape") from None
    return [issue for node in nodes if (issue := _issue_from_node(node)) is not None]


def _issue_from_node(node: object) -> LinearIssue | None:
    if not isinstance(node, dict):
        return None
    identifier, title = node.get("identifier"), node.get("title")
    if not isinstance(identifier, str) or not isinstance(title, str):
        return None
    try:
        updated = datetime.fromisoformat(str(node.get("updatedAt", "")).replace("Z", "+00:00"))
    except ValueError:
        return None
    if updated.tzinfo is None:
        return None
    state = node.get("state")
    return LinearIssue(
        identifier=identifier,
        title=title,
        description=str(node.get("description") or ""),
        url=str(node.get("url") or ""),
        state=str(state.get("name", "")) if isinstance(state, dict) else "",
        updated_at=updated,
    )
