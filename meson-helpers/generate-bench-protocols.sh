#!/bin/sh
# Regenerates the committed wayland-scanner output of the C programs of `touch-router bench e2e`:
# the benchmark client's client headers and code (xdg-shell, input-timestamps, touch-router-input
# for its receipt reports; for the injector wlr-virtual-pointer and virtual-keyboard) and the
# floor server's server headers and code (xdg-shell, input-timestamps), each in its target's
# generated/ folder. SwiftPM builds them as C executables (touch-router-bench-client, -floor,
# -injector).
#   sh meson-helpers/generate-bench-protocols.sh           rewrite them
#   sh meson-helpers/generate-bench-protocols.sh --check   fail if the committed output is stale
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
check=false
[ "${1:-}" = "--check" ] && check=true
command -v wayland-scanner >/dev/null || { echo "error: wayland-scanner not found (Debian: libwayland-bin)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# generate SIDE TARGET PROTOCOL...: SIDE is client or server.
generate() {
    side=$1 target=$2
    shift 2
    dir="$root/Sources/Benchmarks/$target/generated"
    mkdir -p "$work/$target"
    for name in "$@"; do
        wayland-scanner "$side-header" "$root/protocols/$name.xml" "$work/$target/$name-$side-protocol.h"
        wayland-scanner private-code "$root/protocols/$name.xml" "$work/$target/$name-protocol.c"
    done
    if $check; then
        for fresh in "$work/$target"/*; do
            committed="$dir/$(basename "$fresh")"
            cmp -s "$fresh" "$committed" || { echo "error: $committed is not what wayland-scanner makes of protocols/; run sh meson-helpers/generate-bench-protocols.sh" >&2; exit 1; }
        done
        for committed in "$dir"/*; do
            [ -e "$work/$target/$(basename "$committed")" ] || { echo "error: $committed is not generated from protocols/ any more; run sh meson-helpers/generate-bench-protocols.sh" >&2; exit 1; }
        done
    else
        rm -rf "$dir"
        mkdir -p "$dir"
        cp "$work/$target"/* "$dir/"
    fi
}
generate client bench-client xdg-shell input-timestamps-unstable-v1 touch-router-input-v1
generate server bench-floor xdg-shell input-timestamps-unstable-v1
generate client bench-injector wlr-virtual-pointer-unstable-v1 virtual-keyboard-unstable-v1
$check && echo "generated bench protocol code is current" || true
