#!/usr/bin/env bash
# CI for the g3n build: the windowed view (game/, sluice view, examples/dambreak and
# examples/buoyancy -window).
# Installs a C compiler, the OpenGL and X11 headers GLFW compiles against and Xvfb, then vets
# and builds with -tags g3n and runs the g3n tests, a windowed example and the sync benchmark
# under a virtual X server (Mesa's software OpenGL). Runs as root on Debian bookworm.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export DEBIAN_FRONTEND=noninteractive

echo "== installing the g3n build's system packages"
pkgs=(libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth libgl1-mesa-dri)
if ! command -v gcc >/dev/null 2>&1; then
  pkgs+=(gcc libc6-dev)
fi
apt-get update -qq
apt-get install -y -qq "${pkgs[@]}" >/dev/null

export CGO_ENABLED=1
xvfb() { xvfb-run -a -s "-screen 0 1280x720x24" "$@"; }

echo "== go vet -tags g3n"
go vet -tags g3n ./...

echo "== go build -tags g3n"
go build -p 1 -tags g3n ./...

echo "== g3n tests under Xvfb (a skipped render test fails this script)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
xvfb go test -p 1 -count=1 -v -tags g3n ./game/... ./cmd/... 2>&1 | tee "$log" | grep -E '^(=== RUN|--- |ok|FAIL|PASS|panic)|view_test.go' || true
if grep -q -- '--- SKIP' "$log"; then
  echo "a g3n test was skipped under Xvfb:"; grep -B2 -A3 -- '--- SKIP' "$log"; exit 1
fi
if grep -qE '^(--- FAIL|FAIL)' "$log" || ! grep -qE '^ok[[:space:]]+github.com/sluicephysics/sluice/game' "$log"; then
  echo "g3n tests failed:"; cat "$log"; exit 1
fi

echo "== examples/dambreak -window under Xvfb"
shot=$(mktemp --suffix=.png)
xvfb go run -tags g3n ./examples/dambreak -window -obstacle -r 0.05 -duration 0.1 -screenshot "$shot"
test -s "$shot"
rm -f "$shot"

echo "== examples/buoyancy -window under Xvfb (rigid bodies drawn as meshes)"
shot=$(mktemp --suffix=.png)
xvfb go run -tags g3n ./examples/buoyancy -window -scene paddle -duration 0.1 -screenshot "$shot"
test -s "$shot"
rm -f "$shot"

echo "== BenchmarkSync100k, BenchmarkSyncRigid (per-frame CPU cost of syncing 100k particles, and rigid bodies' meshes, into the view)"
go test -p 1 -tags g3n -run '^$' -bench 'Sync100k|SyncRigid' -benchtime 100x ./game/

echo "== the g3n commands of the docs/ pages under Xvfb"
bash .ci/doc-commands g3n
