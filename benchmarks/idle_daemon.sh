#!/bin/bash
# An idle daemon's CPU: start a real daemon on a demo project (HOME and ADE_RUNTIME_DIR temp
# folders), let one search open the project (watcher on), then sum its threads' run time
# (/proc/<pid>/task/*/schedstat, ns) over SECONDS of nothing.
# usage: benchmarks/idle_daemon.sh TREE SECONDS AGENTS   (TREE: a source tree, e.g. a `git
# archive` of main; AGENTS=1 makes several agents' folders in HOME first). PY: the python.
set -e
TREE=$(cd "$1" && pwd); SECS=$2; AGENTS=$3
PY=${PY:-$(pwd)/.venv/bin/python}
T=$(mktemp -d /tmp/ade-idle.XXXX); mkdir -m 700 "$T/rt" "$T/home"
export HOME=$T/home ADE_RUNTIME_DIR=$T/rt ADE_SEMANTIC=0 PYTHONPATH=$TREE
unset PYTHONDONTWRITEBYTECODE
cd "$T"
ade() { "$PY" -c 'import sys; from tui.cli import main_entry; sys.argv = ["ade", *sys.argv[1:]]; main_entry()' "$@"; }
ade demo "$T/demo" >/dev/null 2>&1
if [ "$AGENTS" = 1 ]; then
  slug=$(echo "$T/demo" | sed 's/[^A-Za-z0-9]/-/g')
  mkdir -p "$HOME/.claude/projects/$slug" "$HOME/.codex/sessions/2026/12/07" "$HOME/.gemini/tmp" \
    "$HOME/.local/share/opencode/storage" "$HOME/.config/Code/User/globalStorage" "$HOME/.cursor" \
    "$HOME/.local/share/crush"
  echo '{}' > "$HOME/.config/Code/User/settings.json"
fi
ade search x --project "$T/demo" >/dev/null 2>&1 || true  # no daemon: answers, then starts one
sleep 3
ade search x --project "$T/demo" >/dev/null 2>&1 || true  # the daemon opens the project
sleep 10
PID=""
for p in $(pgrep -u "$(id -u)" -f engine.rpc); do
  grep -qz "ADE_RUNTIME_DIR=$T/rt" "/proc/$p/environ" 2>/dev/null && PID=$p
done
[ -z "$PID" ] && { echo "no daemon found"; exit 1; }
runs() { for t in /proc/$PID/task/*; do echo "$(basename "$t") $(cut -d' ' -f1 "$t/schedstat")"; done; }
runs > "$T/t0"; sleep "$SECS"; runs > "$T/t1"
echo "tree=$TREE agents=$AGENTS"
join "$T/t0" "$T/t1" | awk -v secs="$SECS" '{d=$3-$2; s+=d; if (d>1e6) printf "  thread %s %.1f ms\n", $1, d/1e6}
  END {printf "  total %.1f ms over %d s = %.2f ms CPU per s (%.3f%% of a core)\n", s/1e6, secs, s/1e6/secs, s/1e7/secs}'
kill "$PID"
rm -rf "$T"
