#!/usr/bin/env bash
# Every relative link in the repository's Markdown files, `[text](path)` or
# `[text](path#anchor)`, points at a file or folder that exists. Web links (a scheme),
# in-page anchors (`#…`) and DocC's `<doc:…>` are not checked. `make test` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."

broken=0
checked=0
while IFS= read -r -d '' file; do
  dir=$(dirname "$file")
  # Fenced code is not prose: a `](…)` inside a code block is no link.
  while IFS= read -r target; do
    target=${target%%#*}
    target=${target%% *}  # [text](path "title")
    case "$target" in
      ""|*://*|mailto:*) continue ;;
    esac
    checked=$((checked + 1))
    if [[ "$target" == /* ]]; then path=".$target"; else path="$dir/$target"; fi
    if [ ! -e "$path" ]; then
      echo "$file: broken link: $target" >&2
      broken=$((broken + 1))
    fi
  done < <(awk '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced' "$file" \
             | grep -oE '\]\([^)[:space:]]+( "[^"]*")?\)' | sed -E 's/^\]\(//; s/\)$//')
done < <(find . -name '*.md' -not -path '*/.build*' -not -path './.git/*' -not -path '*/.swiftpm/*' -print0)

if [ "$broken" -gt 0 ]; then
  echo "$broken broken link(s) of $checked" >&2
  exit 1
fi
echo "links: $checked relative links, all resolve"
