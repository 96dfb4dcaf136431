#!/usr/bin/env bash
# Side-by-side figures on the reference library's own dam break (SPlisHSPlasH's
# DamBreakModel.json: 6859 particles, 1 s): wall and CPU seconds per simulated second and peak
# resident memory, for sluice and, when REF names the reference's SPHSimulator binary, for the
# reference on the same scene file, alternating, one line per run.
#
# Usage: bench/reference.sh [SCENES_DIR]
#   SCENES_DIR  the reference's Scenes folder (default ../shared/splishsplash/Scenes)
#   REF         path to the reference's SPHSimulator (optional)
#   THREADS     worker/thread counts to run (default "1 2")
#   RUNS        runs of each (default 1)
#   SOLVERS     "iisph" (the scene switched to IISPH at maxError 0.05 %), "dfsph" (the scene as
#               shipped, which both programs run with DFSPH) and/or "pf" (the scene switched to
#               Projective Fluids, simulationMethod 5, at the reference's default stiffness
#               50000 N/m)
set -euo pipefail
cd "$(dirname "$0")/.."
scenes=${1:-../shared/splishsplash/Scenes}
src="$scenes/DamBreakModel.json"
[ -f "$src" ] || { echo "bench/reference.sh: $src not found (give the reference's Scenes folder)" >&2; exit 2; }
threads=${THREADS:-1 2}
runs=${RUNS:-1}
solvers=${SOLVERS:-iisph dfsph}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The scenes name their meshes relative to themselves (../models): both variants go into a
# temporary Scenes folder beside a link to the reference's models.
mkdir -p "$tmp/Scenes"
ln -s "$(cd "$scenes/.." && pwd)/models" "$tmp/models"
iisph="$tmp/Scenes/DamBreakModel_IISPH.json"
sed -e 's/"simulationMethod": *4/"simulationMethod": 3/' -e 's/"DFSPH":/"IISPH":/' "$src" > "$iisph"
dfsph="$tmp/Scenes/DamBreakModel.json"
cp "$src" "$dfsph"
pf="$tmp/Scenes/DamBreakModel_PF.json"
sed -e 's/"simulationMethod": *4/"simulationMethod": 5/' "$src" > "$pf"

go build -o "$tmp/sluice" ./cmd/sluice
timer=()
if [ -x /usr/bin/time ]; then timer=(/usr/bin/time -f "%e %U %S %M" -o "$tmp/t"); fi

# measure NAME CMD...: runs CMD, prints wall, CPU and peak memory per simulated second (1 s).
measure() {
  local name=$1; shift
  if [ ${#timer[@]} -gt 0 ]; then
    "${timer[@]}" "$@" > "$tmp/out" 2>&1 || { echo "$name: failed"; tail -5 "$tmp/out"; return 1; }
    read -r wall user sys rss < "$tmp/t"
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN { printf "%-34s wall %6.2f s  cpu %6.2f s  peak %6.1f MB\n", n, w, u + s, m / 1024 }'
  else
    local t0=$SECONDS
    "$@" > "$tmp/out" 2>&1 || { echo "$name: failed"; tail -5 "$tmp/out"; return 1; }
    printf '%-34s wall %6d s (install GNU time for CPU and memory)\n' "$name" "$((SECONDS - t0))"
  fi
}

# The reference computes its walls' volume maps on its first run of a scene and caches them in
# a Cache folder beside the scene file (here the temporary Scenes folder); one short untimed
# run per scene warms that cache, so the timed runs measure the simulation only. sluice keeps
# its maps in the same folder (--map-cache), warmed the same way.
cache="$tmp/Scenes/Cache"
for s in $solvers; do
  scene=$dfsph
  [ "$s" = iisph ] && scene=$iisph
  [ "$s" = pf ] && scene=$pf
  "$tmp/sluice" run "$scene" --duration 0.001 --workers 1 --map-cache "$cache" > /dev/null 2>&1 || { echo "sluice: the warm-up run of $scene failed" >&2; exit 1; }
done
if [ -n "${REF:-}" ]; then
  for s in $solvers; do
    scene=$dfsph
    [ "$s" = iisph ] && scene=$iisph
    [ "$s" = pf ] && scene=$pf
    "$REF" --no-gui --no-initial-pause --stopAt 0.01 --output-dir "$tmp/ref" "$scene" > /dev/null 2>&1 || { echo "reference: the warm-up run of $scene failed" >&2; exit 1; }
  done
fi

echo "DamBreakModel.json, 1 s simulated; figures are per simulated second"
for s in $solvers; do
  scene=$dfsph
  [ "$s" = iisph ] && scene=$iisph
  [ "$s" = pf ] && scene=$pf
  for n in $threads; do
    for ((k = 1; k <= runs; k++)); do
      measure "sluice $s, $n worker(s)" "$tmp/sluice" run "$scene" --duration 1 --workers "$n" --map-cache "$cache"
      if [ -n "${REF:-}" ]; then
        measure "reference $s, $n thread(s)" env OMP_NUM_THREADS="$n" "$REF" --no-gui --no-initial-pause --stopAt 1 --output-dir "$tmp/ref" "$scene"
      fi
    done
  done
done
