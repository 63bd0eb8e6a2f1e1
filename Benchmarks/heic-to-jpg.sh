#!/usr/bin/env bash
# HEIC → JPEG on the real photos in TestMedia: offconvert (one batch, and one process per
# photo) against heif-convert (one process per photo), wall time, CPU time and peak memory.
# Not a test: numbers depend on the machine. Needs a release build and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product offconvert >/dev/null
photos=(TestMedia/photos/*.heic TestMedia/photos/*.HEIC)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {
    local label=$1; shift
    # An empty state folder per measurement: its own daily allowance, no resume journal.
    XDG_STATE_HOME=$(mktemp -d -p "$out") /usr/bin/time -o "$out/time" -f "%e s wall, %U+%S s CPU, %M KB peak" "$@" >/dev/null 2>&1
    printf '%-40s %s\n' "$label" "$(cat "$out/time")"
}
echo "${#photos[@]} photos, $(nproc) cores"
for run in 1 2 3; do
    rm -rf "$out/a" "$out/b" "$out/c"; mkdir -p "$out/a" "$out/b" "$out/c"
    measure "offconvert heic-to-jpg (batch)" .build/release/offconvert heic-to-jpg "${photos[@]}" --output-dir "$out/a"
    measure "offconvert, one process per photo" bash -c 'for f; do XDG_STATE_HOME=$(mktemp -d -p '"$out"') .build/release/offconvert heic-to-jpg "$f" --output-dir '"$out/b"' >/dev/null; done' _ "${photos[@]}"
    if command -v heif-convert >/dev/null; then
        measure "heif-convert -q 85, one by one" bash -c 'for f; do n=$(basename "$f"); heif-convert -q 85 "$f" '"$out/c"'/"${n%.*}.jpg" >/dev/null; done' _ "${photos[@]}"
    fi
done
