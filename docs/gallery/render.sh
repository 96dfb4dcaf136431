#!/bin/sh
# Renders every example scene in examples/scenes headless (Xvfb and Mesa's software renderer)
# and writes one picture per scene to docs/gallery/NAME.png: the view's default look, the
# frame shown after FRAMES frames of the scene's own rate (default 45; a few scenes below are
# shown earlier; obstacle.json is coloured by speed: the README's picture). Needs the g3n
# packages and xvfb (docs/view.md).
# Usage, from the repository root: sh docs/gallery/render.sh [scene.json ...]
set -eu
cd "$(dirname "$0")/../.."
bin="${TMPDIR:-/tmp}/sluice-gallery-$$"
CGO_ENABLED=1 go build -tags g3n -o "$bin" ./cmd/sluice
trap 'rm -f "$bin"' EXIT
scenes="$*"
[ -n "$scenes" ] || scenes=$(ls examples/scenes/*.json)
for f in $scenes; do
	name=$(basename "$f" .json)
	frames=${FRAMES:-45}
	extra=
	case "$name" in
	droplet | honey) frames=15 ;;
	flip_dambreak | dough_and_snow) frames=40 ;;
	obstacle) extra="--color speed" ;; # the README's picture
	esac
	echo "$name: $frames frames $extra"
	# shellcheck disable=SC2086 # extra holds separate flags
	xvfb-run -a -s "-screen 0 1280x720x24" "$bin" view "$f" --frames "$frames" $extra --screenshot "docs/gallery/$name.png"
done
