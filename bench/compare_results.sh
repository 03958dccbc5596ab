#!/usr/bin/env bash
# Checks that two builds give the same results: runs every scene in scenes/ and scenes/domino/ (whole duration)
# and the reproducers in bench/stress_findings/ (their first 2 s) with both simpulse binaries, in the exact and
# the thesis mode where the scene allows, and compares the result files with wall_s and the solver's
# workspace_bytes left out (timing and allocation, not physics). Prints each scene that differs and exits 1 if
# any does. Usage: bench/compare_results.sh OLD_SIMPULSE NEW_SIMPULSE [EXTRA_RUN_ARGS...]
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 OLD_SIMPULSE NEW_SIMPULSE [extra simpulse run arguments]" >&2
    exit 2
fi
old=$1 new=$2
shift 2
for b in "$old" "$new"; do [[ -x $b ]] || { echo "$0: $b is not an executable" >&2; exit 2; }; done
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip() {
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d.pop("wall_s", None); d.get("solver", {}).pop("workspace_bytes", None)
json.dump(d, open(sys.argv[1], "w"), sort_keys=True)' "$1"
}
differ=0 count=0
run_both() {  # name, then simpulse run arguments
    local name=$1
    shift
    local a="$work/old.json" b="$work/new.json" sa=0 sb=0
    "$old" run "$@" --quiet --out "$a" >/dev/null 2>&1 || sa=$?
    "$new" run "$@" --quiet --out "$b" >/dev/null 2>&1 || sb=$?
    count=$((count + 1))
    if [[ $sa != "$sb" ]]; then
        echo "DIFFERS $name: exit $sa vs $sb"; differ=1; return
    fi
    [[ $sa == 0 ]] || echo "both exit $sa: $name"
    [[ -f $a && -f $b ]] || { rm -f "$a" "$b"; return; }
    strip "$a"; strip "$b"
    cmp -s "$a" "$b" || { echo "DIFFERS $name"; differ=1; }
    rm -f "$a" "$b"
}
for scene in "$root"/scenes/*.json "$root"/scenes/domino/*.json; do
    name=${scene#"$root"/}
    run_both "$name" "$scene" "$@"
    if python3 -c 'import json,sys; sys.exit(0 if "solver" in json.load(open(sys.argv[1])) else 1)' "$scene"; then
        run_both "$name (thesis)" "$scene" --set '/solver/mode="thesis"' "$@"
    else
        run_both "$name (thesis)" "$scene" --set '/solver={"mode": "thesis"}' "$@"
    fi
done
for scene in "$root"/bench/stress_findings/*.json; do
    run_both "${scene#"$root"/}" "$scene" --duration 2 "$@"
done
echo "$count runs compared: $([[ $differ == 0 ]] && echo "all identical" || echo "some differ")"
exit $differ
