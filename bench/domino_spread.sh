#!/usr/bin/env bash
# Chaotic spread of the domino chain time: runs one domino scene with the striker's release point moved along the
# book's slope by k micrometres (k = -N..N, k = 0 is the scene as written) and prints each chain time and their
# minimum, median and maximum, and how many runs left a domino that was never knocked over (see DominoTiming in
# engine/include/simpulse/domino.h) or one standing at the end (at e = 1 a domino knocked flat can bounce back
# onto its end). A
# micrometre is far below anything the experiment could control, so the spread is the resolution at which a
# single simulated chain time can be compared with the thesis' or the measurement.
# Usage: bench/domino_spread.sh SIMPULSE SCENE N [--set /pointer=value ...]
set -euo pipefail
if [[ $# -lt 3 ]]; then
    echo "usage: $0 SIMPULSE SCENE N [--set /pointer=value ...]" >&2
    exit 2
fi
simpulse=$1 scene=$2 n=$3
shift 3
[[ -x $simpulse ]] || { echo "$0: $simpulse is not an executable" >&2; exit 2; }
[[ -f $scene ]] || { echo "$0: no scene file $scene" >&2; exit 2; }
[[ $n =~ ^[0-9]+$ ]] || { echo "$0: N must be a whole number, got '$n'" >&2; exit 2; }
# The striker is body 2 of the domino scenes; its release point comes from the scene itself.
read -r x0 z0 < <(python3 -c 'import json,sys
s = json.load(open(sys.argv[1])); b = s["bodies"][2]
assert b["name"] == "striker", "body 2 is not the striker"
print(repr(b["position"][0]), repr(b["position"][2]))' "$scene")
times=()
incomplete=0
standing=0
for ((k = -n; k <= n; ++k)); do
    # Down the slope (29.61 degrees) by k micrometres: the striker stays on the book's face.
    pos=$(python3 -c 'import math,sys
k, x0, z0 = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); a = math.radians(29.61)
print("[%r,0,%r]" % (x0 + k * 1e-6 * math.cos(a), z0 - k * 1e-6 * math.sin(a)))' "$k" "$x0" "$z0")
    # A run in which not every domino goes over exits with status 1; it is reported, not fatal.
    status=0
    out=$("$simpulse" domino "$scene" "$@" --set "/bodies/2/position=$pos") || status=$?
    if [[ $status -gt 1 || -z $out ]]; then
        echo "$0: $simpulse failed (status $status) at k = $k" >&2
        exit 1
    fi
    t=$(sed -n 's/.*chain time (first to last hit) \([0-9.-]*\) s.*/\1/p' <<<"$out")
    over=$(sed -n 's/.* \([0-9]*\) of 27 dominoes knocked over.*/\1/p' <<<"$out")
    toppled=$(sed -n 's/.* at the end \([0-9]*\) lie toppled.*/\1/p' <<<"$out")
    printf 'k = %+3d um: chain time %s s, %s of 27 knocked over, %s of 27 toppled at the end\n' "$k" "${t:--}" \
        "$over" "$toppled"
    [[ -n $t ]] && times+=("$t")
    [[ $over == 27 ]] || incomplete=$((incomplete + 1))
    [[ $toppled == 27 ]] || standing=$((standing + 1))
done
echo "$incomplete of $((2 * n + 1)) runs left a domino that was never knocked over;" \
    "$standing left one standing at the end"
printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "no run reported a chain time"; exit 1 }
    printf "%d runs with a chain time: min %.3f s, median %.3f s, max %.3f s\n", NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
