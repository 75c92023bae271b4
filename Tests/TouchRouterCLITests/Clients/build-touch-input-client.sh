#!/bin/sh
# Builds touch-input-client.c into DIRECTORY/touch-input-client, with the wayland-scanner
# client code for xdg-shell and touch-router-input-v1 generated there from protocols/
# (nothing generated is committed for the client). Needs gcc, wayland-scanner and
# libwayland-client's headers (Debian: gcc, libwayland-bin, libwayland-dev; .ci/setup has them).
#   sh Tests/TouchRouterCLITests/Clients/build-touch-input-client.sh DIRECTORY
set -eu
here=$(cd "$(dirname "$0")" && pwd)
protocols="$here/../../../protocols"
out=${1:?usage: build-touch-input-client.sh DIRECTORY}
mkdir -p "$out"
for name in xdg-shell touch-router-input-v1; do
    wayland-scanner client-header "$protocols/$name.xml" "$out/$name-client-protocol.h"
    wayland-scanner private-code "$protocols/$name.xml" "$out/$name-protocol.c"
done
# shellcheck disable=SC2046
gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I"$out" -o "$out/touch-input-client" "$here/touch-input-client.c" \
    "$out/xdg-shell-protocol.c" "$out/touch-router-input-v1-protocol.c" $(pkg-config --cflags --libs wayland-client)
