#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed 002's change as a one-patch mbox (examples/patches/menu.sh polling-threshold).
#   examples/patches/menu-polling-threshold.sh OUT.mbox [TARBALL]
exec sh "$(dirname "$0")/menu.sh" polling-threshold "$@"
