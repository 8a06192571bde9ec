#!/usr/bin/env bash
# The house format (.swift-format: 4 spaces, 150 columns, as hummingbird's), through the
# toolchain's `swift format`.
#   Scripts/format.sh          formats every Swift file in place
#   Scripts/format.sh --check  lints: lists what the format would change, exits 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

# Every Swift file of the package and its sibling packages; never a build folder.
files=()
while IFS= read -r -d '' file; do files+=("$file"); done < <(
  find Package.swift Sources Tests Plugins Examples Benchmarks Fuzz Soak -name '*.swift' \
    -not -path '*/.build*' -print0 2>/dev/null | sort -z)

case "${1:-}" in
  --check)
    "$SWIFT" format lint --strict --parallel --configuration .swift-format "${files[@]}" ;;
  "")
    "$SWIFT" format format --in-place --parallel --configuration .swift-format "${files[@]}" ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2 ;;
esac
