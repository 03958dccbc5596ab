#!/usr/bin/env bash
# The chaotic spread (bench/domino_spread.sh, 2N + 1 perturbed runs) of every sweep configuration at one solver
# mode and step: D in {1, 2, 3} cm x {friction, thesis} variant x e in {0.7, 0.8, 0.9, 1.0}; one line each with
# the runs that left a domino that was never knocked over or one standing at the end, and the chain time's min /
# median / max (docs/domino.md, "Chaotic spread").
# Usage: bench/domino_spread_sweep.sh SIMPULSE MODE DT [N]    e.g. build/engine/simpulse exact 0.004166666666666667
set -euo pipefail
if [[ $# -lt 3 ]]; then
    echo "usage: $0 SIMPULSE MODE DT [N]" >&2
    exit 2
fi
simpulse=$1 mode=$2 dt=$3 n=${4:-5}
[[ $mode == exact || $mode == thesis ]] || { echo "$0: MODE must be exact or thesis, got '$mode'" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
scenes=$here/../scenes/domino
for variant in friction thesis; do
    for d in 1 2 3; do
        for e in 0.7 0.8 0.9 1.0; do
            sets=(--set "/dt=$dt" --set "/solver/mode=\"$mode\"")
            for k in 0 1 2; do sets+=(--set "/pairs/$k/restitution=$e"); done
            out=$("$here/domino_spread.sh" "$simpulse" "$scenes/d${d}_$variant.json" "$n" "${sets[@]}")
            per_run=$(grep "^k = " <<<"$out" || true)
            runs=$(grep -c . <<<"$per_run" || true)
            never=$(grep -vc " 27 of 27 knocked over" <<<"$per_run" || true)
            standing=$(grep -vc " 27 of 27 toppled" <<<"$per_run" || true)
            echo "$variant D = $d cm e = $e: of $runs runs $never left a domino that was never knocked over," \
                "$standing one standing at the end; $(tail -1 <<<"$out")"
        done
    done
done
