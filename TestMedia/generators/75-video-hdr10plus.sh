#!/usr/bin/env bash
# Fixtures for HDR10+ dynamic metadata and raw-stream timing (issue 18).
#
#   hdr10plus.mp4          HEVC 10-bit PQ 160x90, 10 frames at 25 fps, HDR10 static metadata and an
#                          HDR10+ (SMPTE ST 2094-40) SEI on every picture, its MaxSCL and average
#                          MaxRGB changing per frame. Debian's x265 is built without HDR10+
#                          (dhdr10-info is disabled), so the SEI is written here, before each
#                          picture's first slice, from a deterministic description.
#   fidelity-raw50.hevc    raw HEVC at 50 fps, the rate in its VUI timing information.
#   fidelity-raw-untimed.hevc  raw HEVC without VUI timing information: nothing says its rate.
set -euo pipefail
cd "$OUT"
x265hdr="pools=none:frame-threads=1:log-level=error:bframes=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
x265hdr+=":range=limited:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"
x265hdr+=":max-cll=1000,400:hdr10=1"
ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 -pix_fmt yuv420p10le -c:v libx265 -preset ultrafast \
  -x265-params "$x265hdr" -f hevc hdr10plus-plain.hevc
python3 - hdr10plus-plain.hevc hdr10plus.hevc <<'PY'
import sys

class Bits:
    def __init__(self): self.bits = []
    def put(self, value, count):
        self.bits += [(value >> (count - 1 - i)) & 1 for i in range(count)]
    def bytes(self):
        while len(self.bits) % 8: self.bits.append(0)
        return bytes(int("".join(map(str, self.bits[i:i + 8])), 2) for i in range(0, len(self.bits), 8))

def payload(frame):
    """ITU-T T.35 HDR10+ payload (ST 2094-40 application 4, version 1), one processing window."""
    b = Bits()
    b.put(0xB5, 8); b.put(0x003C, 16); b.put(0x0001, 16); b.put(4, 8); b.put(1, 8)
    b.put(1, 2)            # num_windows
    b.put(400, 27)         # targeted_system_display_maximum_luminance
    b.put(0, 1)            # targeted_system_display_actual_peak_luminance_flag
    for value in (5000 + 100 * frame, 4000, 3000): b.put(value, 17)   # maxscl
    b.put(1000 + 10 * frame, 17)                                      # average_maxrgb
    percentiles = [(1, 100), (50, 2000), (99, 4500)]
    b.put(len(percentiles), 4)
    for percentage, percentile in percentiles: b.put(percentage, 7); b.put(percentile, 17)
    b.put(0, 10)           # fraction_bright_pixels
    b.put(0, 1)            # mastering_display_actual_peak_luminance_flag
    b.put(0, 1)            # tone_mapping_flag
    b.put(0, 1)            # color_saturation_mapping_flag
    return b.bytes()

def escaped(data):
    out, zeros = bytearray(), 0
    for byte in data:
        if zeros >= 2 and byte <= 3:
            out.append(3); zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)

def sei(frame):
    body = payload(frame)
    message = bytes([4]) + bytes([255] * (len(body) // 255)) + bytes([len(body) % 255]) + body + b"\x80"
    return b"\x00\x00\x00\x01" + bytes([39 << 1, 1]) + escaped(message)

data = open(sys.argv[1], "rb").read()
starts, i = [], 0
while (i := data.find(b"\x00\x00\x01", i)) >= 0:
    starts.append(i + 3); i += 3
out, frame = bytearray(), 0
for n, start in enumerate(starts):
    nal = data[start:starts[n + 1] - 3 if n + 1 < len(starts) else len(data)].rstrip(b"\x00")
    if (nal[0] >> 1) & 0x3F < 32 and nal[2] & 0x80:   # a picture's first slice segment
        out += sei(frame); frame += 1
    out += b"\x00\x00\x00\x01" + nal
open(sys.argv[2], "wb").write(out)
PY
ffmpeg -v error -y -r 25 -i hdr10plus.hevc -c copy -tag:v hvc1 -fflags +bitexact -map_metadata -1 -flags:v +bitexact hdr10plus.mp4
rm hdr10plus-plain.hevc hdr10plus.hevc

raw=(-c:v libx265 -preset ultrafast -pix_fmt yuv420p -f hevc)
ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=50" -t 0.4 "${raw[@]}" \
  -x265-params "pools=none:frame-threads=1:log-level=error" fidelity-raw50.hevc
ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=50" -t 0.4 "${raw[@]}" \
  -x265-params "pools=none:frame-threads=1:log-level=error:vui-timing-info=0" fidelity-raw-untimed.hevc
