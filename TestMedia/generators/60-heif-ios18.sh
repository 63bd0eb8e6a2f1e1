#!/usr/bin/env bash
# HEICs laid out the way iOS 18 writes them, which libheif 1.15 refuses, for offconvert's own
# HEIF reader to convert anyway. The coded images come from heif-enc; a small Python writer lays
# out meta itself around them (hdlr, pitm, iinf, iref, iprp, idat, iloc) with:
#
#   heif-ios18/tmap.heic           an hvc1 primary with the Display P3 ICC profile of
#                                  IMG_3853.HEIC, an hdrgainmap auxiliary image, and an ISO
#                                  21496-1 `tmap` item (dimg → primary, gain map; altr group),
#                                  EXIF and XMP linked to the primary only.
#   heif-ios18/tmap-metadata.heic  the same with EXIF and XMP linked to the primary and the tmap
#                                  item ("Metadata not correctly assigned to image" in 1.15).
#   heif-ios18/aux.heic            six auxiliary images of the primary plus one of two images
#                                  ("Too many auxiliary image references" in 1.15).
#   heif-ios18/all.heic            all of it, a 2x2 grid primary whose last column and row
#                                  overhang the picture (300x236 of 2x2 tiles of 160x128), and an
#                                  irot of 90° anticlockwise.
#
# The pictures are testsrc2 frames (not square, so a wrong turn changes the size).
set -euo pipefail
mkdir -p "$OUT/heif-ios18"
cd "$OUT/heif-ios18"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=320x256:rate=1" -frames:v 1 -fflags +bitexact -flags:v +bitexact "$tmp/whole.png"
heif-enc -p x265:pools=none -q 90 -o "$tmp/whole.heic" "$tmp/whole.png" >/dev/null
for tile in 0 1 2 3; do
  x=$(( (tile % 2) * 160 )); y=$(( (tile / 2) * 128 ))
  ffmpeg -nostdin -v error -y -i "$tmp/whole.png" -vf "crop=160:128:$x:$y" -fflags +bitexact -flags:v +bitexact "$tmp/tile$tile.png"
  heif-enc -p x265:pools=none -q 90 -o "$tmp/tile$tile.heic" "$tmp/tile$tile.png" >/dev/null
done
python3 - "$tmp" "$MEDIA/photos/IMG_3853.HEIC" <<'PY'
import struct, sys

tmp, apple = sys.argv[1], sys.argv[2]

def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size

def child(data, kind, start, end):
    return next(b for b in boxes(data, start, end) if b[0] == kind)

def coded(path):
    """The hvcC box and the coded bytes of heif-enc's one image."""
    data = open(path, "rb").read()
    _, ms, me = child(data, "meta", 0, len(data))
    _, ps, pe = child(data, "iprp", ms + 12, me)
    _, cs, ce = child(data, "ipco", ps + 8, pe)
    _, hs, he = child(data, "hvcC", cs + 8, ce)
    _, ls, le = child(data, "iloc", ms + 12, me)
    version = data[ls + 8]
    sizes = struct.unpack(">H", data[ls + 12:ls + 14])[0]
    osz, lsz, bsz = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    isz = sizes & 15 if version >= 1 else 0
    p = ls + 14
    def read(w):
        nonlocal p
        v = int.from_bytes(data[p:p + w], "big") if w else 0
        p += w
        return v
    count = read(2)
    assert count == 1
    read(2)
    if version >= 1: read(2)
    read(2)
    base = read(bsz)
    out = b""
    for _ in range(read(2)):
        read(isz)
        off = read(osz)
        length = read(lsz)
        out += data[base + off:base + off + length]
    return data[hs:he], out

def apple_icc():
    data = open(apple, "rb").read()
    _, ms, me = child(data, "meta", 0, len(data))
    _, ps, pe = child(data, "iprp", ms + 12, me)
    _, cs, ce = child(data, "ipco", ps + 8, pe)
    for kind, s, e in boxes(data, cs + 8, ce):
        if kind == "colr" and data[s + 8:s + 12] == b"prof":
            return data[s:e]

def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload

def full(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)

def tiff():
    make = b"offconvert test\0"
    entries = [(0x010F, 2, len(make), 8 + 2 + 2 * 12 + 4), (0x0112, 3, 1, 1)]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHI", tag, kind, count) + (struct.pack("<I", value) if kind == 2 else struct.pack("<HH", value, 0))
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + make

XMP = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="offconvert test"/></rdf:RDF></x:xmpmeta>')

def write(target, grid, metadata_on_tmap, many_aux, rotate):
    whole_hvcc, whole_data = coded(tmp + "/whole.heic")
    tiles = [coded(f"{tmp}/tile{i}.heic") for i in range(4)]
    assert all(t[0] == tiles[0][0] for t in tiles), "heif-enc writes the same hvcC for equal tiles"
    items = []  # (id, type, hidden, name/content, data, in_idat)
    props = []  # property boxes
    assoc = {}  # id -> [(index, essential)]
    refs = []   # (type, from, [to])
    def prop(b):
        props.append(b)
        return len(props)
    icc = prop(apple_icc())
    hvcc_whole = prop(whole_hvcc)
    hvcc_tile = prop(tiles[0][0])
    ispe_whole = prop(full("ispe", 0, 0, struct.pack(">II", 320, 256)))
    ispe_grid = prop(full("ispe", 0, 0, struct.pack(">II", 300, 236)))
    ispe_tile = prop(full("ispe", 0, 0, struct.pack(">II", 160, 128)))
    irot = prop(box("irot", bytes([1])))
    gain = prop(full("auxC", 0, 0, b"urn:com:apple:photo:2020:aux:hdrgainmap\0"))
    nclx = prop(box("colr", b"nclx" + struct.pack(">HHHB", 1, 13, 6, 0x80)))
    primary = 1
    if grid:
        descriptor = struct.pack(">BBBBHH", 0, 0, 1, 1, 300, 236)
        items.append((primary, "grid", False, b"", descriptor, True))
        assoc[primary] = [(icc, True), (ispe_grid, False)]
        for i, (_, data) in enumerate(tiles):
            items.append((20 + i, "hvc1", True, b"", data, False))
            assoc[20 + i] = [(hvcc_tile, True), (ispe_tile, False)]
        refs.append(("dimg", primary, [20, 21, 22, 23]))
    else:
        items.append((primary, "hvc1", False, b"", whole_data, False))
        assoc[primary] = [(hvcc_whole, True), (ispe_whole, False), (icc, True)]
    if rotate:
        assoc[primary].append((irot, True))
    # The gain map: a small auxiliary image of the primary (the whole picture's coded image).
    items.append((2, "hvc1", True, b"", whole_data, False))
    assoc[2] = [(hvcc_whole, True), (ispe_whole, False), (gain, True), (nclx, True)]
    refs.append(("auxl", 2, [primary]))
    aux_ids = []
    if many_aux:
        for i in range(6):
            urn = f"urn:com:apple:photo:2023:aux:extra{i}\0".encode()
            items.append((30 + i, "hvc1", True, b"", whole_data, False))
            assoc[30 + i] = [(hvcc_whole, True), (ispe_whole, False), (prop(full("auxC", 0, 0, urn)), True)]
            refs.append(("auxl", 30 + i, [primary]))
        # One auxiliary image of two images (the primary and the gain map).
        items.append((40, "hvc1", True, b"", whole_data, False))
        assoc[40] = [(hvcc_whole, True), (ispe_whole, False), (prop(full("auxC", 0, 0, b"urn:com:apple:photo:2024:aux:shared\0")), True)]
        refs.append(("auxl", 40, [primary, 2]))
    # The tmap item: ISO 21496-1 metadata in idat, derived from the primary and the gain map.
    tmap_payload = bytes([0, 0, 0, 0, 0, 0]) + bytes(58)
    items.append((9, "tmap", False, b"", tmap_payload, True))
    assoc[9] = [(ispe_grid if grid else ispe_whole, False), (nclx, False)]
    refs.append(("dimg", 9, [primary, 2]))
    targets = [primary, 9] if metadata_on_tmap else [primary]
    items.append((10, "Exif", True, b"", b"\0\0\0\0" + tiff(), False))
    refs.append(("cdsc", 10, targets))
    items.append((11, "mime", True, b"\0application/rdf+xml\0", XMP, False))
    refs.append(("cdsc", 11, targets))

    def meta(mdat_start):
        infe = b""
        for iid, kind, hidden, extra, _, _ in items:
            infe += full("infe", 2, 1 if hidden else 0, struct.pack(">HH", iid, 0) + kind.encode() + (extra if extra else b"\0"))
        iinf = full("iinf", 0, 0, struct.pack(">H", len(items)) + infe)
        iref = full("iref", 0, 0, b"".join(
            box(kind, struct.pack(">HH", src, len(to)) + b"".join(struct.pack(">H", t) for t in to)) for kind, src, to in refs))
        ipco = box("ipco", b"".join(props))
        entries = b""
        for iid in sorted(assoc):
            entries += struct.pack(">HB", iid, len(assoc[iid])) + bytes((0x80 if e else 0) | i for i, e in assoc[iid])
        ipma = full("ipma", 0, 0, struct.pack(">I", len(assoc)) + entries)
        iprp = box("iprp", ipco + ipma)
        idat_payload = b""
        file_offset = mdat_start + 8
        locs = b""
        for iid, _, _, _, data, in_idat in items:
            if in_idat:
                locs += struct.pack(">HHHHII", iid, 1, 0, 1, len(idat_payload), len(data))
                idat_payload += data
            else:
                locs += struct.pack(">HHHHII", iid, 0, 0, 1, file_offset, len(data))
                file_offset += len(data)
        iloc = full("iloc", 1, 0, struct.pack(">HH", 0x4400, len(items)) + locs)
        hdlr = full("hdlr", 0, 0, b"\0\0\0\0pict" + bytes(12) + b"\0")
        pitm = full("pitm", 0, 0, struct.pack(">H", primary))
        grpl = box("grpl", full("altr", 0, 0, struct.pack(">III", 100, 2, 9) + struct.pack(">I", primary)))
        return full("meta", 0, 0, hdlr + pitm + iinf + iref + iprp + grpl + box("idat", idat_payload) + iloc)

    ftyp = box("ftyp", b"heic\0\0\0\0mif1heicmiaftmap")
    size = len(meta(0))
    body = meta(len(ftyp) + size)
    assert len(body) == size
    mdat = box("mdat", b"".join(data for _, _, _, _, data, in_idat in items if not in_idat))
    open(target, "wb").write(ftyp + body + mdat)

write("tmap.heic", grid=False, metadata_on_tmap=False, many_aux=False, rotate=False)
write("tmap-metadata.heic", grid=False, metadata_on_tmap=True, many_aux=False, rotate=False)
write("aux.heic", grid=False, metadata_on_tmap=False, many_aux=True, rotate=False)
write("all.heic", grid=True, metadata_on_tmap=True, many_aux=True, rotate=True)
PY
