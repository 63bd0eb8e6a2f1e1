#!/usr/bin/env bash
# Samsung HEICs as One UI 6 writes them (described from a real Galaxy S22+ motion photo; no such
# file is freely licensed, so the layout is rebuilt around a generated still and clip):
#
#   motion-samsung-oneui6.heic  top-level ftyp, mdat (the picture and the XMP), meta, free, mpvd (a
#                               whole MP4: motion-clip.mp4), sefd (Samsung's SEF trailer: Image_UTC_Data,
#                               MCC_Data, MotionPhoto_Data holding only a 12-byte pointer, "mpv2" and
#                               the MP4's offset and length big-endian, MotionPhoto_Version "mpv3").
#                               XMP GCamera:MotionPhoto 1, Container:Directory with the MotionPhoto item's
#                               Length (the MP4) and Padding (the sefd box after it).
#   samsung-still.heic          the same photo without motion: ftyp, mdat, meta and a sefd whose trailer
#                               holds Image_UTC_Data, MCC_Data, Photo_HDR_Info (type 0x0a41, a guess: no
#                               public table lists it) and Camera_Capture_Mode_Info
#                               (the entries of a real SM-G975F HEIC, photos/Issue_487.heic, and of
#                               One UI's non-motion shots).
set -euo pipefail
cd "$OUT"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact -flags:a +bitexact)
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=320x240:rate=1" -frames:v 1 "${exact[@]}" -q:v 4 samsung-heic-still.jpg
exiftool -q -overwrite_original -DateTimeOriginal="2024:05:06 07:08:09" -Make=samsung -Model=SM-S906B samsung-heic-still.jpg
heif-enc -p x265:pools=none -q 50 samsung-heic-still.jpg -o samsung-heic-base.heic >/dev/null
clip_bytes=$(stat -c %s motion-clip.mp4)
cat > samsung-heic.xmp <<XMP
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="250000"><Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/heic" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="$clip_bytes" Item:Padding="SEFD_PADDING"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
XMP
cp samsung-heic-base.heic samsung-heic-plain.heic
python3 - <<'PY'
import struct

def entry_bytes(entries):
    """SEF data entries and their SEFH directory (version 107, as One UI writes)."""
    body, placed = b"", []
    for tag, name, data in entries:
        placed.append((tag, len(body), 8 + len(name) + len(data)))
        body += b"\x00\x00" + struct.pack("<H", tag) + struct.pack("<I", len(name)) + name + data
    sefh = b"SEFH" + struct.pack("<II", 107, len(entries))
    for tag, start, length in placed:
        sefh += b"\x00\x00" + struct.pack("<HII", tag, len(body) - start, length)
    trailer = body + sefh + struct.pack("<I", len(sefh)) + b"SEFT"
    return struct.pack(">I", 8 + len(trailer)) + b"sefd" + trailer

def boxes(data):
    at = 0
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        yield kind, data[at:at + size]
        at += size

def mdat_first(path):
    """ftyp, mdat, meta, as One UI orders them: heif-enc writes meta first, so every file
    offset in iloc moves back by the size of meta."""
    data = open(path, "rb").read()
    parts = dict(boxes(data))
    ftyp, meta, mdat = parts[b"ftyp"], bytearray(parts[b"meta"]), parts[b"mdat"]
    at = 12
    while at < len(meta):
        size, kind = struct.unpack(">I4s", meta[at:at + 8])
        if kind == b"iloc":
            shift_iloc(meta, at, -len(meta))
        at += size
    return ftyp + mdat + bytes(meta)

def shift_iloc(meta, start, delta):
    version = meta[start + 8]
    sizes = struct.unpack(">H", meta[start + 12:start + 14])[0]
    offset_size, length_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    index_size = sizes & 15 if version >= 1 else 0
    position = start + 14
    count_width = 2 if version < 2 else 4
    items = int.from_bytes(meta[position:position + count_width], "big")
    position += count_width
    for _ in range(items):
        position += count_width
        method = int.from_bytes(meta[position:position + 2], "big") & 15 if version >= 1 else 0
        position += 2 if version >= 1 else 0
        position += 2
        base = int.from_bytes(meta[position:position + base_size], "big") if base_size else 0
        # An item's offset is its base plus each extent's: exiftool writes base 0 for the XMP.
        shift_base = method == 0 and base > 0
        if shift_base:
            meta[position:position + base_size] = (base + delta).to_bytes(base_size, "big")
        position += base_size
        extents = int.from_bytes(meta[position:position + 2], "big")
        position += 2
        for _ in range(extents):
            position += index_size
            offset = int.from_bytes(meta[position:position + offset_size], "big")
            if method == 0 and not shift_base:
                meta[position:position + offset_size] = (offset + delta).to_bytes(offset_size, "big")
            position += offset_size + length_size

clip = open("motion-clip.mp4", "rb").read()
utc, mcc = (0x0A01, b"Image_UTC_Data", b"1714979289000"), (0x0AA1, b"MCC_Data", b"262")
free = struct.pack(">I", 16) + b"free" + bytes(8)
mpvd = struct.pack(">I", 8 + len(clip)) + b"mpvd" + clip
still = None
# The pointer names the MP4's offset, which the XMP's padding (the sefd size) moves: settle both.
xmp = open("samsung-heic.xmp").read()
padding = 0
for _ in range(3):
    open("samsung-heic.xmp.tmp", "w").write(xmp.replace("SEFD_PADDING", str(padding)))
    import subprocess
    subprocess.run(["cp", "samsung-heic-base.heic", "samsung-heic-x.heic"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-xmp<=samsung-heic.xmp.tmp", "samsung-heic-x.heic"], check=True)
    still = mdat_first("samsung-heic-x.heic")
    video_at = len(still) + len(free) + 8
    pointer = b"mpv2" + struct.pack(">II", video_at, len(clip))
    sefd = entry_bytes([utc, mcc, (0x0A30, b"MotionPhoto_Data", pointer), (0x0A31, b"MotionPhoto_Version", b"mpv3")])
    if len(sefd) == padding:
        break
    padding = len(sefd)
open("motion-samsung-oneui6.heic", "wb").write(still + free + mpvd + sefd)

plain = mdat_first("samsung-heic-plain.heic")
hdr, mode = (0x0A41, b"Photo_HDR_Info", b"HDR10+ 1"), (0x0C61, b"Camera_Capture_Mode_Info", b"1")
open("samsung-still.heic", "wb").write(plain + entry_bytes([utc, mcc, hdr, mode]))
PY
rm -f samsung-heic-still.jpg samsung-heic-base.heic samsung-heic-plain.heic samsung-heic-x.heic samsung-heic.xmp samsung-heic.xmp.tmp
