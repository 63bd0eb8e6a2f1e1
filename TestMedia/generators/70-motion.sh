#!/usr/bin/env bash
# Motion photos: a JPEG (or HEIC), its XMP, and an MP4 appended, as phones write them.
#
#   motion-clip.mp4             the clip every fixture below embeds: H.264 + AAC, 0.5 s, 160x120.
#   motion-located-clip.mp4     the same with a udta ©xyz location.
#   motion-google.MP.jpg        Pixel 3 layout: XMP Camera:MotionPhoto and a Container:Directory
#                               (Primary + MotionPhoto video/mp4 with Item:Length), clip appended;
#                               EXIF DateTimeOriginal 2021:03:04 05:06:07, OffsetTimeOriginal +02:00.
#   motion-located.MP.jpg       the same layout embedding motion-located-clip.mp4; the still has no GPS.
#   motion-microvideo.jpg       the older GCamera:MicroVideo + MicroVideoOffset layout.
#   motion-samsung.jpg          Samsung: Image_UTC_Data and MotionPhoto_Data entries after the JPEG,
#                               indexed by an SEFH/SEFT trailer; no motion XMP at all.
#   motion-samsung-mcc.jpg      the same with MCC_Data (310) before a located clip's entry.
#   motion-gainmap.MP.jpg       Container with Primary, GainMap (a second JPEG) and MotionPhoto.
#   motion-pointer-only.MP.jpg  XMP declares a 50000-byte video, none appended (a shortened upload).
#   motion.heic                 a HEIC with the clip in a top-level 'mpvd' box after its boxes.
set -euo pipefail
cd "$OUT"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact -flags:a +bitexact)
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=160x120:rate=20" -f lavfi -i "sine=frequency=330:sample_rate=48000" \
  -t 0.5 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac "${exact[@]}" motion-clip.mp4
ffmpeg -nostdin -v error -y -i motion-clip.mp4 -c copy "${exact[@]}" -metadata location="+48.8584+002.2945/" motion-located-clip.mp4
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=320x240:rate=1" -frames:v 1 "${exact[@]}" -q:v 4 motion-still.jpg
ffmpeg -nostdin -v error -y -f lavfi -i "color=gray:size=80x60:rate=1" -frames:v 1 "${exact[@]}" -q:v 8 motion-gain.jpg
exiftool -q -overwrite_original -DateTimeOriginal="2021:03:04 05:06:07" -OffsetTimeOriginal="+02:00" \
  -Make=Google -Model="Pixel Test" motion-still.jpg
cp motion-still.jpg motion-samsung-still.jpg
exiftool -q -overwrite_original -OffsetTimeOriginal= -Make=samsung -Model=SM-TEST motion-samsung-still.jpg

python3 - <<'PY'
import struct

def xmp_segment(body):
    packet = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
              + body + '</rdf:RDF></x:xmpmeta>').encode()
    payload = b"http://ns.adobe.com/xap/1.0/\x00" + packet
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload

def with_xmp(jpeg, body):
    # After SOI and the APP1 Exif segment exiftool wrote first, as cameras order them.
    at = 2
    while jpeg[at] == 0xFF and jpeg[at + 1] in (0xE0, 0xE1):
        at += 2 + struct.unpack(">H", jpeg[at + 2:at + 4])[0]
    return jpeg[:at] + xmp_segment(body) + jpeg[at:]

def item(mime, semantic, length, padding=0):
    return ('<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="%s" Item:Semantic="%s" '
            'Item:Length="%d" Item:Padding="%d"/></rdf:li>' % (mime, semantic, length, padding))

def container(items):
    return ('<rdf:Description rdf:about="" xmlns:Camera="http://ns.google.com/photos/1.0/camera/" '
            'xmlns:Container="http://ns.google.com/photos/1.0/container/" '
            'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" '
            'Camera:MotionPhoto="1" Camera:MotionPhotoVersion="1" Camera:MotionPhotoPresentationTimestampUs="0">'
            '<Container:Directory><rdf:Seq>' + "".join(items) + '</rdf:Seq></Container:Directory></rdf:Description>')

still = open("motion-still.jpg", "rb").read()
gain = open("motion-gain.jpg", "rb").read()
clip = open("motion-clip.mp4", "rb").read()
located = open("motion-located-clip.mp4", "rb").read()
prim = item("image/jpeg", "Primary", 0)

open("motion-google.MP.jpg", "wb").write(with_xmp(still, container([prim, item("video/mp4", "MotionPhoto", len(clip))])) + clip)
open("motion-located.MP.jpg", "wb").write(with_xmp(still, container([prim, item("video/mp4", "MotionPhoto", len(located))])) + located)
open("motion-gainmap.MP.jpg", "wb").write(
    with_xmp(still, container([prim, item("image/jpeg", "GainMap", len(gain)), item("video/mp4", "MotionPhoto", len(clip))]))
    + gain + clip)
open("motion-pointer-only.MP.jpg", "wb").write(with_xmp(still, container([prim, item("video/mp4", "MotionPhoto", 50000)])))
micro = ('<rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" '
         'GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="%d" '
         'GCamera:MicroVideoPresentationTimestampUs="0"/>' % len(clip))
open("motion-microvideo.jpg", "wb").write(with_xmp(still, micro) + clip)

# Samsung: each entry is 00 00, a 16-bit type, a 32-bit name length, the name, the data; the
# SEFH directory gives each entry's distance back from SEFH and its length.
samsung = open("motion-samsung-still.jpg", "rb").read()

def sef(entries):
    body = b""
    placed = []
    for kind, name, data in entries:
        placed.append((kind, len(body), 8 + len(name) + len(data)))
        body += struct.pack("<HHI", 0, kind, len(name)) + name + data
    sefh = b"SEFH" + struct.pack("<II", 106, len(entries))
    for kind, start, length in placed:
        sefh += struct.pack("<HHII", 0, kind, len(body) - start, length)
    return body + sefh + struct.pack("<I", len(sefh)) + b"SEFT"

utc = (0x0A01, b"Image_UTC_Data", b"1614834367000")
open("motion-samsung.jpg", "wb").write(samsung + sef([utc, (0x0A30, b"MotionPhoto_Data", clip)]))
# The country of the phone's network (MCC_Data, 310: United States) before a located clip, as
# Samsung's camera orders them: strip-location edits both.
open("motion-samsung-mcc.jpg", "wb").write(
    samsung + sef([utc, (0x0AA1, b"MCC_Data", b"310"), (0x0A30, b"MotionPhoto_Data", located)]))
PY

heif-enc -p x265:pools=none -q 50 motion-still.jpg -o motion-still.heic >/dev/null
python3 - <<'PY'
import struct
clip = open("motion-clip.mp4", "rb").read()
heic = open("motion-still.heic", "rb").read()
open("motion.heic", "wb").write(heic + struct.pack(">I", len(clip) + 8) + b"mpvd" + clip)
PY
rm -f motion-still.heic motion-samsung-still.jpg motion-gain.jpg
