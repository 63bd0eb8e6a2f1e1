#!/usr/bin/env bash
# Side-by-side timings of offconvert's video engine against the ffmpeg CLI with identical settings,
# and of a passthrough remux against `ffmpeg -c copy` and `cp`. Prints wall time and CPU time
# (user+sys; steadier than wall time on a busy machine), medians of N runs, peak memory and output size. Usage: Scripts/bench-video.sh [runs]   (build first: swift build [-c release])
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-3}"
bin="$root/.build/release/offconvert"
[ -x "$bin" ] || bin="$root/.build/debug/offconvert"
media="$root/TestMedia"
"$media/generate"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# median wall seconds and max RSS (KB) over $runs runs of "$@"; the output dir is emptied between runs.
measure() {
  local times=() cpus=() mem=0
  for _ in $(seq "$runs"); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    local line
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >/dev/null 2>&1
    line=$(tail -1 "$work/time")
    read -r wall user sys m <<<"$line"
    times+=("$wall")
    cpus+=("$(echo "$user + $sys" | bc)")
    [ "$m" -gt "$mem" ] && mem="$m"
  done
  local median cpu
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  local size
  size=$(find "$work/out" -type f -printf '%s\n' | head -1)
  printf '%-44s wall %6.2fs  cpu %6.2fs  %8d KB %10s B\n' "$label" "$median" "$cpu" "$mem" "${size:-0}"
}

echo "binary: $bin; runs: $runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
ff=(ffmpeg -nostdin -v error -y)

for clip in video/bikes.mp4 video/motion.mov generated/video-long.mp4; do
  input="$media/$clip"
  label="transcode h264 crf23 ours  $(basename "$clip")"
  measure "$bin" convert "$input" --to mp4 --codec h264 --crf 23 -o "$work/out"
  label="transcode h264 crf23 ffmpeg $(basename "$clip")"
  measure "${ff[@]}" -i "$input" -map 0:v:0 -map 0:a:0? -c:v libx264 -crf 23 -preset medium -pix_fmt yuv420p \
    -c:a copy -movflags +faststart -map_metadata -1 "$work/out/x.mp4"
done

input="$media/video/hlg10-color-test.mp4"
label="tone map HLG->h264 ours"
measure "$bin" send-to-windows "$input" -o "$work/out"
label="tone map HLG->h264 ffmpeg"
measure "${ff[@]}" -i "$input" -map 0:v:0 -map 0:a:0 \
  -vf "zscale=tin=arib-std-b67:min=bt2020nc:pin=bt2020:rin=tv:t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p" \
  -c:v libx264 -crf 23 -preset medium -color_primaries bt709 -color_trc bt709 -colorspace bt709 -c:a copy \
  -movflags +faststart "$work/out/x.mp4"

for clip in video/motion.mov generated/video-long.mp4 generated/video-iphone-like.mov; do
  input="$media/$clip"
  label="remux ours          $(basename "$clip")"
  measure "$bin" convert "$input" --to mp4 -o "$work/out"
  label="remux ffmpeg -c copy $(basename "$clip")"
  measure "${ff[@]}" -i "$input" -map 0:v:0 -map 0:a:0 -c copy -movflags +faststart "$work/out/x.mp4"
  label="cp                  $(basename "$clip")"
  measure cp "$input" "$work/out/x"
done

input="$media/video/motion.mov"
label="gif 8s 12fps 480w ours"
measure "$bin" gif "$input" --fps 12 --width 480 -o "$work/out"
label="gif 8s 12fps 480w ffmpeg (same filters)"
measure "${ff[@]}" -i "$input" -filter_complex \
  "fps=12,scale=w='min(iw,480)':h=-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle" \
  "$work/out/x.gif"
label="gif 8s 12fps 480w ffmpeg (classic recipe)"
measure "${ff[@]}" -i "$input" -filter_complex \
  "fps=12,scale=480:-1:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse" "$work/out/x.gif"
