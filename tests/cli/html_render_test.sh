#!/usr/bin/env bash
# Renders the --html pages of memory, simulate (with its DES timeline), compare and search in
# headless Chromium (Debian's `chromium`, installed by .ci/setup) and fails on a render error or a
# console message. Skipped (exit 77) with a message when chromium is absent.
# Usage: html_render_test.sh SHARDSIM
set -euo pipefail
bin=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium is not installed (.ci/setup installs it)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" memory mixtral-8x7b-16xh100 --html "$dir/memory.html" >/dev/null
"$bin" simulate gpt3-175b-1536xa100 --html "$dir/simulate.html" >/dev/null
"$bin" compare llama3-8b-8xh100 --vary parallel.zero=0,1,2,3 --vary parallel.tp=1,3 \
  --html "$dir/compare.html" >/dev/null
"$bin" search llama3-8b-8xh100 --top 5 --html "$dir/search.html" >/dev/null
"$bin" suite --group korthikanti --group mcore --html "$dir/suite.html" >/dev/null
status=0
for page in memory simulate compare search suite; do
  log="$dir/$page.log"
  if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr \
      --v=0 --window-size=1000,1400 --screenshot="$dir/$page.png" "file://$dir/$page.html" \
      >"$log" 2>&1; then
    echo "FAIL $page: chromium exited with an error"; cat "$log"; status=1; continue
  fi
  if [ ! -s "$dir/$page.png" ]; then echo "FAIL $page: no screenshot"; status=1; fi
  # Console messages (script errors, blocked loads) are logged as CONSOLE lines.
  if grep -E "CONSOLE|Uncaught|Failed to load" "$log"; then
    echo "FAIL $page: console messages"; status=1
  fi
  echo "ok $page ($(stat -c %s "$dir/$page.html") bytes of HTML)"
done
exit $status
