#!/usr/bin/env bash
# ctest rebuild_profiles: scenarios/measurements/rebuild-profiles.sh run into a temporary folder
# must reproduce every committed fitted preset and fit report byte for byte, and every committed
# preset that says "fitted": true must be one the command writes.
# usage: rebuild_profiles_test.sh SHARDSIM SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src/scenarios/measurements/rebuild-profiles.sh" "$bin" "$tmp"
status=0
written=0
for f in "$tmp"/gpus/*.json "$tmp"/gpus/measured/*.json "$tmp"/clusters/*.json \
  "$tmp"/measurements/fits/*.txt; do
  rel=${f#"$tmp"/}
  written=$((written + 1))
  if ! cmp -s "$f" "$src/scenarios/$rel"; then
    echo "scenarios/$rel differs from what rebuild-profiles.sh writes:"
    diff "$src/scenarios/$rel" "$f" | head -20 || true
    status=1
  fi
done
for f in "$src"/scenarios/gpus/*.json "$src"/scenarios/gpus/measured/*.json \
  "$src"/scenarios/clusters/*.json; do
  rel=${f#"$src"/scenarios/}
  if grep -q '"fitted": true' "$f" && [ ! -e "$tmp/$rel" ]; then
    echo "scenarios/$rel says fitted but rebuild-profiles.sh does not write it"
    status=1
  fi
done
echo "rebuild-profiles.sh: $written files compared"
exit $status
