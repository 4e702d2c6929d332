#!/usr/bin/env bash
# Builds cairn's release archives and checksums.txt into dist/ (or -out
# DIR); publishes nothing. See scripts/release/main.go.
#
#   scripts/release.sh v1.2.3                       # a clean tree, HEAD tagged v1.2.3
#   scripts/release.sh -snapshot                    # any tree: v0.0.0-SNAPSHOT-<revision>
#   scripts/release.sh -snapshot -targets host -out /tmp/dist
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/release "$@"
