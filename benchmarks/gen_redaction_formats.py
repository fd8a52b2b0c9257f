"""Regenerate ``engine/redaction/formats.py`` (and the examples the benchmark checks) from gitleaks.

gitleaks (MIT, https://github.com/gitleaks/gitleaks) keeps ~220 secret rules as data in
``config/gitleaks.toml``: a Go regex, the literal keywords one of which must occur for the rule to
run, an entropy floor and allowlists. This script reads them from a git checkout of gitleaks,
translates each regex to Python ``re`` (Go RE2 differs in a few places, see :func:`go_to_python`),
and writes them as a Python module, so the rule set follows gitleaks instead of a hand-kept list.
It also pulls the true- and false-positive examples out of the rule generators
(``cmd/generate/config/rules/*.go``) into ``benchmarks/data/gitleaks_examples.json`` for
``bench_secrets.py``; random secrets in them (``secrets.NewSecret(regex)``) are drawn with ``rstr``
from a fixed seed, so a regeneration is reproducible.

    python -m benchmarks.gen_redaction_formats /path/to/gitleaks.git [--rev HEAD]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "engine" / "redaction_formats.py"
EXAMPLES = ROOT / "benchmarks" / "data" / "gitleaks_examples.json"

SKIPPED_RULES = {
    "pkcs12-file": "a path-only rule (a .p12 file), nothing in text to match",
}

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
    "space": r" \t\r\n\v\f",
    "punct": r"!-/:-@\[-`{-~",
}


def go_to_python(pattern: str) -> str:
    """Translate a Go RE2 pattern to Python ``re`` (compiled with ``re.ASCII`` like RE2's classes).

    - a flag group ``(?i)`` after the start scopes to the end of its enclosing group in RE2;
      Python allows global flags only at the start, so it becomes ``(?i:`` … ``)`` closed where
      the enclosing group closes;
    - ``\\z`` (end of text) is ``\\Z``; POSIX classes ``[[:alnum:]]`` are spelled out;
    - ``[``, ``&``, ``~`` and ``|`` inside a class are escaped (Python warns about future set
      operations there).
    """
    out: list[str] = []
    closers: list[int] = [0]  # per open group: extra ")" owed when it closes
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            pair = pattern[i : i + 2]
            out.append(r"\Z" if pair == r"\z" else pair)
            i += 2
            continue
        if in_class:
            posix = re.match(r"\[:(\w+):\]", pattern[i:])
            if posix:
                out.append(_POSIX_CLASSES[posix.group(1)])
                i += posix.end()
                continue
            if ch == "]" and not _class_just_opened(out):
                in_class = False
                out.append(ch)
            elif ch in "[&~|":
                out.append("\\" + ch)
            else:
                out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        flags = re.match(r"\(\?([a-zA-Z-]+)\)", pattern[i:])
        if flags and (i > 0 or len(closers) > 1):
            out.append(f"(?{flags.group(1)}:")
            closers[-1] += 1
            i += flags.end()
            continue
        if ch == "(":
            closers.append(0)
        elif ch == ")":
            out.append(")" * closers.pop())
        out.append(ch)
        i += 1
    out.append(")" * closers.pop())
    return "".join(out)


def _class_just_opened(out: list[str]) -> bool:
    """A ``]`` right after ``[`` or ``[^`` is a literal in both dialects."""
    return out[-1:] == ["["] or out[-2:] == ["[", "^"]


def _compiles(pattern: str) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning) as error:
            return str(error)
    return None


def _allowlists(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Allowlists usable without a file path: path-only ones, and AND ones needing a path, drop."""
    kept = []
    for allow in raw:
        if allow.get("paths") and (allow.get("condition") == "AND" or not allow.get("regexes")):
            continue
        if not allow.get("regexes") and not allow.get("stopwords"):
            continue
        kept.append(
            {
                "target": allow.get("regexTarget", "secret"),
                "regexes": [go_to_python(r) for r in allow.get("regexes", [])],
                "stopwords": [w.lower() for w in allow.get("stopwords", [])],
            }
        )
    return kept


def build_module(config: dict[str, Any], version: str) -> tuple[str, list[str]]:
    """The text of ``engine/redaction/formats.py`` and the rules left out (with why)."""
    left_out = [f"{rid}: {why}" for rid, why in SKIPPED_RULES.items()]
    formats = []
    for rule in config["rules"]:
        if rule["id"] in SKIPPED_RULES:
            continue
        regex = go_to_python(rule["regex"])
        error = _compiles(regex)
        allows = _allowlists(rule.get("allowlists", []))
        for allow in allows:
            error = error or next(filter(None, map(_compiles, allow["regexes"])), None)
        if error:
            left_out.append(f"{rule['id']}: does not translate ({error})")
            continue
        allow_text = "".join(_allow_repr(a) + ", " for a in allows)
        formats.append(
            f"    Format(\n        {rule['id']!r},\n        {regex!r},\n"
            f"        {tuple(k.lower() for k in rule.get('keywords', []))!r},\n"
            f"        {float(rule.get('entropy', 0))!r},\n        {rule.get('secretGroup', 0)!r},\n"
            f"        ({allow_text}),\n    ),"
        )
    glob = config.get("allowlist", {})
    lines = [
        '"""Secret formats from gitleaks — GENERATED by benchmarks/gen_redaction_formats.py; do not',
        "edit by hand (rerun the script against a newer gitleaks instead).",
        "",
        f"gitleaks {version} (config/gitleaks.toml, MIT licence). Regexes are translated from Go RE2",
        "to Python ``re`` and are compiled with ``re.ASCII``. Rules left out:",
        *[f"- {entry}" for entry in left_out],
        '"""',
        "",
        "# fmt: off",
        "from engine.redaction.format_types import Allow, Format",
        "",
        f"GITLEAKS_VERSION = {version!r}",
        "",
        "FORMATS: tuple[Format, ...] = (",
        *formats,
        ")",
        "",
        "GLOBAL_ALLOW_REGEXES: tuple[str, ...] = "
        f"{tuple(go_to_python(r) for r in glob.get('regexes', []))!r}",
        "",
        f"GLOBAL_STOPWORDS: tuple[str, ...] = {tuple(w.lower() for w in glob.get('stopwords', []))!r}",
        "",
    ]
    return "\n".join(lines), left_out


def _allow_repr(allow: dict[str, Any]) -> str:
    return f"Allow({allow['target']!r}, {tuple(allow['regexes'])!r}, {tuple(allow['stopwords'])!r})"


# --- examples from the Go rule generators -------------------------------------------------------

_TOKEN = re.compile(
    r"""\s+|//[^\n]*|`[^`]*`|"(?:[^"\\\n]|\\.)*"|\.\.\.|[A-Za-z_][\w.]*|[(){}\[\],+]|:=|=|[^\s]"""
)


class _Unknown(Exception):
    """An expression this small evaluator does not understand: the example is skipped."""


class _GoExamples:
    """Evaluate the string expressions of ``tps``/``fps`` in one generator function."""

    def __init__(self, rng: random.Random) -> None:
        import rstr

        self.xeger = rstr.Rstr(rng).xeger
        self.tokens: list[str] = []
        self.pos = 0

    def run(self, body: str) -> dict[str, list[str]]:
        env: dict[str, Any] = {}
        for statement in _statements(body):
            match = re.match(r"\s*(\w+)\s*(:=|=)\s*(.*)\Z", statement, re.S)
            if not match or match.group(1) not in ("tps", "fps"):
                continue
            try:
                value = self.evaluate(match.group(3), env)
            except (_Unknown, IndexError, ValueError, re.error):
                continue
            if isinstance(value, list):
                env[match.group(1)] = value
        return {k: v for k, v in env.items() if isinstance(v, list)}

    def evaluate(self, text: str, env: dict[str, Any]) -> Any:
        self.tokens = [t for t in _TOKEN.findall(text) if t.strip() and not t.startswith("//")]
        self.pos = 0
        value = self.expression(env)
        if self.pos != len(self.tokens):
            raise _Unknown(text)
        return value

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.tokens[self.pos]
        if expected is not None and token != expected:
            raise _Unknown(token)
        self.pos += 1
        return token

    def expression(self, env: dict[str, Any]) -> Any:
        value = self.atom(env)
        while self.peek() == "+":
            self.take()
            right = self.atom(env)
            if not isinstance(value, str) or not isinstance(right, str):
                raise _Unknown("+")
            value += right
        return value

    def arguments(self, env: dict[str, Any]) -> list[Any]:
        self.take("(")
        args = []
        while self.peek() != ")":
            args.append(self.expression(env))
            if self.peek() == "...":
                self.take()
                args[-1] = ("spread", args[-1])
            if self.peek() == ",":
                self.take()
        self.take(")")
        return args

    def atom(self, env: dict[str, Any]) -> Any:
        token = self.take()
        if token.startswith("`"):
            return token[1:-1]
        if token.startswith('"'):
            return json.loads(token) if "\\x" not in token else _go_unquote(token)
        if token == "[" and self.take("]") and self.take() == "string":
            self.take("{")
            items = []
            while self.peek() != "}":
                items.append(self.expression(env))
                if self.peek() == ",":
                    self.take()
            self.take("}")
            return items
        if token in env:
            return env[token]
        if self.peek() == "(":
            return self.call(token, self.arguments(env))
        raise _Unknown(token)

    def call(self, name: str, args: list[Any]) -> Any:
        sizes = {
            "utils.Numeric": "[0-9]{%s}",
            "utils.Hex": "[a-f0-9]{%s}",
            "utils.AlphaNumeric": "[a-z0-9]{%s}",
            "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
            "utils.AlphaNumericExtended": r"[a-z0-9=_\-]{%s}",
            "utils.AlphaNumericExtendedLong": r"[a-z0-9\/=_\+\-]{%s}",
        }
        if name in sizes:
            return sizes[name] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret":
            return self.xeger(go_to_python(args[0]))
        if name == "utils.GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "utils.GenerateSampleSecrets":
            return [s.replace("{i}", args[0]).replace("{I}", args[0].upper()).replace(
                "{s}", args[1]) for s in _SAMPLES]  # fmt: skip
        if name == "append":
            items = list(args[0])
            for arg in args[1:]:
                items.extend(arg[1] if isinstance(arg, tuple) else [arg])
            return items
        if name == "fmt.Sprintf":
            return _sprintf(args[0], args[1:])
        raise _Unknown(name)


_SAMPLES = [
    '{i}Token="{s}"', '{i}Token = "{s}"', "{i}Token={s}", "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}', '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>", "{i}_token: {s}", "{i}_token: '{s}'", '{i}_token: "{s}"',
    'string {i}Token = "{s}";', 'var {i}Token string = "{s}"', '{i}Token := "{s}"',
    "{i}Token := `{s}`", 'String {i}Token = "{s}";', 'var {i}Token = "{s}"',
    '${i}Token .= "{s}"', "{i}Token = '{s}'", '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")', '  "{i}Token" => "{s}"', '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"', '{i}_TOKEN ::= "{s}"', '{i}_TOKEN :::= "{s}"', '{i}_TOKEN ?= "{s}"',
]  # fmt: skip
"""``utils.GenerateSampleSecrets``' templates (cmd/generate/config/utils/generate.go)."""


def _go_unquote(token: str) -> str:
    return token[1:-1].encode().decode("unicode_escape")


def _sprintf(template: str, args: list[Any]) -> str:
    values = iter(args)
    return re.sub(r"%[sdvq]", lambda _: str(next(values)), template.replace("%%", "\0")).replace(
        "\0", "%"
    )


def _statements(body: str) -> list[str]:
    """Top-level statements of a Go function body (split on newlines outside brackets/strings)."""
    statements, depth, current = [], 0, []
    for token in _TOKEN.findall(body):
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        if depth == 0 and "\n" in token and not token.startswith(("`", '"')):
            statements.append("".join(current))
            current = []
            continue
        current.append(token)
    statements.append("".join(current))
    return statements


def extract_examples(files: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """Rule id → {"tps": [...], "fps": [...]} from every generator function."""
    rng = random.Random(28)
    examples: dict[str, dict[str, list[str]]] = {}
    for text in files.values():
        for function in re.split(r"\nfunc ", text)[1:]:
            rule_id = re.search(r'RuleID:\s*"([^"]+)"', function)
            if not rule_id:
                continue
            body = function[function.index("{") + 1 :]
            found = _GoExamples(rng).run(body)
            if found:
                examples[rule_id.group(1)] = {k: found.get(k, []) for k in ("tps", "fps")}
    return examples


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={repo}", *args], check=True, capture_output=True, text=True
    ).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gitleaks_git_dir", type=Path)
    parser.add_argument("--rev", default="HEAD")
    options = parser.parse_args(argv)
    repo, rev = options.gitleaks_git_dir, options.rev
    sha = _git(repo, "rev-parse", rev).strip()
    described = _git(repo, "describe", "--tags", sha).strip()
    version = f"{described} ({sha[:12]})"
    config = tomllib.loads(_git(repo, "show", f"{sha}:config/gitleaks.toml"))
    text, left_out = build_module(config, version)
    MODULE.write_text(text)
    names = _git(repo, "ls-tree", "--name-only", sha, "cmd/generate/config/rules/").split()
    files = {n: _git(repo, "show", f"{sha}:{n}") for n in names if n.endswith(".go")}
    EXAMPLES.parent.mkdir(exist_ok=True)
    EXAMPLES.write_text(
        json.dumps({"gitleaks": version, "rules": extract_examples(files)}, indent=1) + "\n"
    )
    print(f"gitleaks {version}: {len(config['rules'])} rules; left out {len(left_out)}")
    for entry in left_out:
        print("  " + entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
