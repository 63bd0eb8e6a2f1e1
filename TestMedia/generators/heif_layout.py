"""Lays out a HEIF file the way cameras other than iPhones write them, around HEVC images coded by
heif-enc: a grid of tiles (its last row and column may overhang the picture, as Nokia's and
Sony's do) or one image without a grid, with an optional irot and an nclx box or ICC profile.

    heif_layout.py OUT.heic --picture WxH [--grid COLSxROWS] [--irot N] [--imir AXIS] [--nclx P,T,M,FULL]
                   [--icc PROFILE] [--aux URN=CODED.heic[,CODED.heic...] [--aux-grid COLSxROWS --aux-size WxH]]
                   [--aux-xmp PACKET] [--tmap RECORD] [--xmp PACKET] CODED.heic...

--aux adds one heif-enc image as a hidden auxiliary image of the primary (auxC with URN, auxl
reference), e.g. a gain map, or with --aux-grid a hidden grid of several (a Galaxy S25's map is
two tiles); --xmp adds an XMP item (mime application/rdf+xml, cdsc) to the primary, --aux-xmp one
to the auxiliary image. --tmap adds an ISO 21496-1 `tmap` item (RECORD is its payload, version
byte first) derived from the primary and the auxiliary image, an `altr` group of it and the
primary, and the `tmap` brand, as Samsung's S25 writes them.

Each CODED.heic is one heif-enc output (its hvcC and coded bytes are taken, its other boxes
dropped); a grid takes them row by row, and they must share one hvcC. Used by the generators
(small fixtures) and by Benchmarks (camera-sized ones). Deterministic: no timestamps."""
import argparse
import struct


def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size


def child(data, kind, start, end):
    return next(b for b in boxes(data, start, end) if b[0] == kind)


def coded(path):
    """The hvcC box, the ispe size and the coded bytes of heif-enc's one image."""
    data = open(path, "rb").read()
    _, ms, me = child(data, "meta", 0, len(data))
    _, ps, pe = child(data, "iprp", ms + 12, me)
    _, cs, ce = child(data, "ipco", ps + 8, pe)
    _, hs, he = child(data, "hvcC", cs + 8, ce)
    _, ss, _ = child(data, "ispe", cs + 8, ce)
    size = struct.unpack(">II", data[ss + 12:ss + 20])
    _, ls, _ = child(data, "iloc", ms + 12, me)
    version = data[ls + 8]
    sizes = struct.unpack(">H", data[ls + 12:ls + 14])[0]
    osz, lsz, bsz = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    isz = sizes & 15 if version >= 1 else 0
    position = ls + 14

    def read(width):
        nonlocal position
        value = int.from_bytes(data[position:position + width], "big") if width else 0
        position += width
        return value

    count = read(2)
    assert count == 1, "one image per heif-enc file"
    read(2)
    if version >= 1:
        read(2)
    read(2)
    base = read(bsz)
    out = b""
    for _ in range(read(2)):
        read(isz)
        offset = read(osz)
        length = read(lsz)
        out += data[base + offset:base + offset + length]
    return data[hs:he], size, out


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--picture", required=True)
    parser.add_argument("--grid")
    parser.add_argument("--irot", type=int)
    parser.add_argument("--imir", type=int, help="mirror axis: 0 vertical (left and right swap), 1 horizontal")
    parser.add_argument("--nclx")
    parser.add_argument("--icc")
    parser.add_argument("--aux")
    parser.add_argument("--aux-grid")
    parser.add_argument("--aux-size")
    parser.add_argument("--aux-xmp")
    parser.add_argument("--tmap")
    parser.add_argument("--xmp")
    parser.add_argument("coded", nargs="+")
    args = parser.parse_args()
    width, height = map(int, args.picture.split("x"))
    images = [coded(path) for path in args.coded]
    assert all(image[0] == images[0][0] for image in images), "tiles share one hvcC"
    props = []

    def prop(payload):
        props.append(payload)
        return len(props)

    hvcc = prop(images[0][0])
    tile_ispe = prop(full("ispe", 0, 0, struct.pack(">II", *images[0][1])))
    picture_ispe = prop(full("ispe", 0, 0, struct.pack(">II", width, height)))
    colour = []
    if args.nclx:
        primaries, transfer, matrix, full_range = map(int, args.nclx.split(","))
        colour.append((prop(box("colr", b"nclx" + struct.pack(">HHHB", primaries, transfer, matrix, 0x80 if full_range else 0))), True))
    if args.icc:
        colour.append((prop(box("colr", b"prof" + open(args.icc, "rb").read())), True))
    rotation = [(prop(box("irot", bytes([args.irot]))), True)] if args.irot else []
    if args.imir is not None:
        rotation.append((prop(box("imir", bytes([args.imir]))), True))
    items, assoc, refs = [], {}, []
    if args.grid:
        columns, rows = map(int, args.grid.split("x"))
        assert columns * rows == len(images)
        wide = width > 65535 or height > 65535
        descriptor = struct.pack(">BBBB", 0, 1 if wide else 0, rows - 1, columns - 1) + struct.pack(">II" if wide else ">HH", width, height)
        items.append((1, "grid", False, descriptor, True))
        assoc[1] = [(picture_ispe, False)] + colour + rotation
        for index, image in enumerate(images):
            items.append((100 + index, "hvc1", True, image[2], False))
            assoc[100 + index] = [(hvcc, True), (tile_ispe, False)]
        refs.append(("dimg", 1, [100 + index for index in range(len(images))]))
    else:
        assert len(images) == 1 and images[0][1] == (width, height)
        items.append((1, "hvc1", False, images[0][2], False))
        assoc[1] = [(hvcc, True), (tile_ispe, False)] + colour + rotation

    if args.aux and args.aux_grid:
        urn, paths = args.aux.split("=", 1)
        tiles = [coded(path) for path in paths.split(",")]
        columns, rows = map(int, args.aux_grid.split("x"))
        assert columns * rows == len(tiles) and all(tile[0] == tiles[0][0] for tile in tiles)
        aux_width, aux_height = map(int, args.aux_size.split("x"))
        aux_props = [prop(tiles[0][0]), prop(full("ispe", 0, 0, struct.pack(">II", *tiles[0][1]))),
                     prop(full("ispe", 0, 0, struct.pack(">II", aux_width, aux_height))),
                     prop(full("auxC", 0, 0, urn.encode() + b"\0"))]
        descriptor = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, aux_width, aux_height)
        items.append((50, "grid", True, descriptor, True))
        assoc[50] = [(aux_props[2], False), (aux_props[3], True)] + rotation
        for index, tile in enumerate(tiles):
            items.append((70 + index, "hvc1", True, tile[2], False))
            assoc[70 + index] = [(aux_props[0], True), (aux_props[1], False)]
        refs.append(("dimg", 50, [70 + index for index in range(len(tiles))]))
        refs.append(("auxl", 50, [1]))
    elif args.aux:
        urn, path = args.aux.split("=", 1)
        aux_hvcc, aux_size, aux_data = coded(path)
        aux_props = [prop(aux_hvcc), prop(full("ispe", 0, 0, struct.pack(">II", *aux_size))),
                     prop(full("auxC", 0, 0, urn.encode() + b"\0"))]
        items.append((50, "hvc1", False, aux_data, False))
        assoc[50] = [(aux_props[0], True), (aux_props[1], False), (aux_props[2], True)] + rotation
        refs.append(("auxl", 50, [1]))
    groups = b""
    if args.tmap:
        items.append((80, "tmap", False, open(args.tmap, "rb").read(), True))
        assoc[80] = [(picture_ispe, False)]
        refs.append(("dimg", 80, [1, 50]))
        groups = box("grpl", full("altr", 0, 0, struct.pack(">IIII", 90, 2, 80, 1)))
    xmp_item = None
    if args.xmp:
        items.append((60, "mime", False, open(args.xmp, "rb").read(), False))
        xmp_item = 60
        refs.append(("cdsc", 60, [1]))
    if args.aux_xmp:
        items.append((61, "mime", False, open(args.aux_xmp, "rb").read(), False))
        refs.append(("cdsc", 61, [50]))

    def entry(iid, kind, hidden):
        if kind == "mime":
            return full("infe", 2, 1, struct.pack(">HH", iid, 0) + b"mime\0application/rdf+xml\0")
        return full("infe", 2, 1 if hidden else 0, struct.pack(">HH", iid, 0) + kind.encode() + b"\0")

    def meta(mdat_start):
        infe = b"".join(entry(iid, kind, hidden or iid == 50) for iid, kind, hidden, _, _ in items)
        iinf = full("iinf", 0, 0, struct.pack(">H", len(items)) + infe)
        iref = full("iref", 0, 0, b"".join(
            box(kind, struct.pack(">HH", src, len(to)) + b"".join(struct.pack(">H", t) for t in to)) for kind, src, to in refs))
        entries = b"".join(struct.pack(">HB", iid, len(assoc[iid])) + bytes((0x80 if e else 0) | i for i, e in assoc[iid])
                           for iid in sorted(assoc))
        iprp = box("iprp", box("ipco", b"".join(props)) + full("ipma", 0, 0, struct.pack(">I", len(assoc)) + entries))
        idat, locs, offset = b"", b"", mdat_start + 8
        for iid, _, _, data, in_idat in items:
            if in_idat:
                locs += struct.pack(">HHHHII", iid, 1, 0, 1, len(idat), len(data))
                idat += data
            else:
                locs += struct.pack(">HHHHII", iid, 0, 0, 1, offset, len(data))
                offset += len(data)
        iloc = full("iloc", 1, 0, struct.pack(">HH", 0x4400, len(items)) + locs)
        hdlr = full("hdlr", 0, 0, b"\0\0\0\0pict" + bytes(12) + b"\0")
        pitm = full("pitm", 0, 0, struct.pack(">H", 1))
        return full("meta", 0, 0, hdlr + pitm + iinf + (iref if refs else b"") + iprp + box("idat", idat) + iloc + groups)

    ftyp = box("ftyp", b"heic\0\0\0\0mif1heicmiaf" + (b"tmap" if args.tmap else b""))
    size = len(meta(0))
    body = meta(len(ftyp) + size)
    mdat = box("mdat", b"".join(data for _, _, _, data, in_idat in items if not in_idat))
    open(args.out, "wb").write(ftyp + body + mdat)


main()
