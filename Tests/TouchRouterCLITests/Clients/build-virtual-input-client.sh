#!/bin/sh
# Builds virtual-input-client.c into DIRECTORY/virtual-input-client, with the wayland-scanner
# client code for xdg-shell, input-timestamps, wlr virtual pointer and virtual keyboard
# generated there from protocols/ (nothing generated is committed for the client). Needs
# gcc, wayland-scanner and libwayland-client's headers, as build-touch-input-client.sh.
#   sh Tests/TouchRouterCLITests/Clients/build-virtual-input-client.sh DIRECTORY
set -eu
here=$(cd "$(dirname "$0")" && pwd)
protocols="$here/../../../protocols"
out=${1:?usage: build-virtual-input-client.sh DIRECTORY}
mkdir -p "$out"
sources=""
for name in xdg-shell input-timestamps-unstable-v1 wlr-virtual-pointer-unstable-v1 virtual-keyboard-unstable-v1; do
    wayland-scanner client-header "$protocols/$name.xml" "$out/$name-client-protocol.h"
    wayland-scanner private-code "$protocols/$name.xml" "$out/$name-protocol.c"
    sources="$sources $out/$name-protocol.c"
done
# shellcheck disable=SC2046,SC2086
gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I"$out" -o "$out/virtual-input-client" "$here/virtual-input-client.c" \
    $sources $(pkg-config --cflags --libs wayland-client)
