#!/usr/bin/env python3
"""Independent check of an AVIF or JPEG XL written from a gain-map photo (no offconvert code).

usage: hdr-output-oracle.py SOURCE OUTPUT.avif|OUTPUT.jxl

SOURCE is a HEIC with a gain map (Apple, iOS 18 ISO 21496-1, Samsung) or an Ultra HDR JPEG; its
HDR rendition (linear light, SDR white = 1, in SOURCE's primaries) is rebuilt by gainmap-oracle.py's
source_reference, from SOURCE's own planes and parameters.

AVIF OUTPUT: pillow-heif (libheif 1.23) lists its auxiliary images ("aux"; its wheel has no AV1
decoder, so it decodes nothing). This script's own box walker reads the file's structure: the
ftyp brands, the `tmap` item and its `dimg` inputs, the `altr` group, the `auxl` reference and
`auxC` type of the gain map, and the tmap's ISO 21496-1 record (gainmap-oracle.py's reader).
libavif (imagecodecs.avif_decode, dav1d/aom) decodes the primary, and the gain map after it is cut
into an AVIF of its own (its av1C, ispe and pixi properties and its coded bytes). The output's HDR
rendition is then the standard's formula over those planes with the tmap's values:
hdr = (sdr + base_offset) x 2^(min + (max - min) x gain^(1/gamma)) - alternate_offset,
gain scaled up bilinearly, sdr linear through the sRGB curve (Display P3 and sRGB both use it).

JPEG XL OUTPUT: jxlinfo states the colour encoding; djxl decodes it to a 16-bit PPM in that
encoding; PQ (ST 2084) gives nits, / 203 gives linear light with SDR white = 1. SOURCE's
reference goes to BT.2020 primaries through a matrix made here from its ICC colorants (read by
Pillow; sRGB's without a profile) and BT.2020's chromaticities (Bradford-adapted to D50).

SOURCE a PQ or HLG HEIF without a gain map (JPEG XL OUTPUT only): the transfer jxlinfo names, and
djxl's 16-bit signal against pillow-heif's decode of SOURCE's code values (PSNR, peak 1; largest
difference), since those are kept as they are.

Both are compared with SOURCE's reference, area-averaged to OUTPUT's size: PSNR with the
reference's headroom as the peak (and, for scale, the PSNR of SOURCE's SDR picture itself: what a
lost or flat map would score), and the ratio of the brightest values. Prints one JSON line.
"""
import importlib.util
import io
import json
import os
import struct
import subprocess
import sys

import imagecodecs
import numpy as np
from PIL import Image, ImageCms

def oracle(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


base = oracle("gainmap-oracle")
still = oracle("hdrstill-oracle")

WHITE = 203.0


def psnr(a, b, peak):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return base.EXACT if mse == 0 else 10 * np.log10(peak * peak / mse)


# --- AVIF -----------------------------------------------------------------------------------

def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def meta_model(data):
    """Items (type, hidden flag), references by type, altr groups, each item's properties and
    locations, and the ftyp brands of an ISO-BMFF file with 16-bit item IDs."""
    top = {kind: (start, end) for kind, start, end in base.boxes(data, 0, len(data))}
    ftyp = data[top["ftyp"][0]:top["ftyp"][1]]
    brands = [ftyp[i:i + 4].decode("latin1") for i in range(8, len(ftyp), 4)] + [ftyp[:4].decode("latin1")]
    start, end = top["meta"]
    children = {kind: (s, e) for kind, s, e in base.boxes(data, start + 4, end)}
    items = {}
    s, e = children["iinf"]
    for _, body, _ in base.boxes(data, s + 4 + (2 if data[s] == 0 else 4), e):
        item = struct.unpack(">H", data[body + 4:body + 6])[0]
        items[item] = {"type": data[body + 8:body + 12].decode("latin1"), "hidden": data[body + 3] & 1 == 1}
    refs = {}
    s, e = children["iref"]
    for kind, body, stop in base.boxes(data, s + 4, e):
        source, count = struct.unpack(">HH", data[body:body + 4])
        targets = list(struct.unpack(">%dH" % count, data[body + 4:body + 4 + 2 * count]))
        refs.setdefault(kind, []).append((source, targets))
    groups = []
    if "grpl" in children:
        s, e = children["grpl"]
        for kind, body, stop in base.boxes(data, s, e):
            count = struct.unpack(">I", data[body + 8:body + 12])[0]
            groups.append((kind, list(struct.unpack(">%dI" % count, data[body + 12:body + 12 + 4 * count]))))
    s, e = children["iprp"]
    iprp = {kind: (a, b) for kind, a, b in base.boxes(data, s, e)}
    properties = [(kind, data[a - 8:b]) for kind, a, b in base.boxes(data, *iprp["ipco"])]
    a, b = iprp["ipma"]
    flags = data[a + 3]
    cursor, associations = a + 8, {}
    for _ in range(struct.unpack(">I", data[a + 4:a + 8])[0]):
        item = struct.unpack(">H", data[cursor:cursor + 2])[0]
        count = data[cursor + 2]
        cursor += 3
        links = []
        for _ in range(count):
            if flags & 1:
                value = struct.unpack(">H", data[cursor:cursor + 2])[0] & 0x7FFF
                cursor += 2
            else:
                value = data[cursor] & 0x7F
                cursor += 1
            links.append(properties[value - 1])
        associations[item] = links
    return brands, items, refs, groups, associations, locations(data, children["iloc"])


def locations(data, iloc):
    """Each item's (offset, length) extents in a version 0 or 1 iloc (construction method 0)."""
    start, _ = iloc
    version = data[start]
    offset_size, length_size = data[start + 4] >> 4, data[start + 4] & 15
    base_size, index_size = data[start + 5] >> 4, (data[start + 5] & 15) if version in (1, 2) else 0
    cursor = start + 6
    count = struct.unpack(">H", data[cursor:cursor + 2])[0]
    cursor += 2
    out = {}
    for _ in range(count):
        item = struct.unpack(">H", data[cursor:cursor + 2])[0]
        cursor += 2 + (2 if version in (1, 2) else 0) + 2
        base_offset = int.from_bytes(data[cursor:cursor + base_size], "big")
        cursor += base_size
        extents = struct.unpack(">H", data[cursor:cursor + 2])[0]
        cursor += 2
        out[item] = []
        for _ in range(extents):
            cursor += index_size
            offset = int.from_bytes(data[cursor:cursor + offset_size], "big")
            cursor += offset_size
            length = int.from_bytes(data[cursor:cursor + length_size], "big")
            cursor += length_size
            out[item].append((base_offset + offset, length))
    return out


def standalone_avif(data, links, extents):
    """An AVIF whose only (primary) image is the item with property boxes `links` and coded
    bytes at `extents` of `data`."""
    coded = b"".join(data[offset:offset + length] for offset, length in extents)
    kept = [raw for kind, raw in links if kind in ("av1C", "ispe", "pixi", "colr")]
    ipco = box("ipco", b"".join(kept))
    ipma = box("ipma", struct.pack(">IIHB", 0, 1, 1, len(kept)) + bytes(0x80 | (i + 1) for i in range(len(kept))))
    infe = box("infe", struct.pack(">BBBBHH", 2, 0, 0, 0, 1, 0) + b"av01" + b"\0")
    head = [box("hdlr", bytes(8) + b"pict" + bytes(12) + b"\0"), box("pitm", struct.pack(">IH", 0, 1)),
            box("iinf", struct.pack(">IH", 0, 1) + infe), None, box("iprp", ipco + ipma)]
    ftyp = box("ftyp", b"avif" + bytes(4) + b"avifmif1miaf")

    def iloc(offset):
        # Version 0, 4-byte offsets and lengths, no base offset; one item with one extent.
        return box("iloc", struct.pack(">IBBH", 0, 0x44, 0x00, 1) + struct.pack(">HHHII", 1, 0, 1, offset, len(coded)))

    head[3] = iloc(0)
    size = len(ftyp) + len(box("meta", bytes(4) + b"".join(head)))
    head[3] = iloc(size + 8)
    return ftyp + box("meta", bytes(4) + b"".join(head)) + box("mdat", coded)


def avif_planes(path):
    """The primary (8-bit RGB) and gain map (8-bit: grey for a one-channel tmap record, RGB for a
    three-channel one) of an AVIF with a tmap item, both decoded by libavif."""
    data = open(path, "rb").read()
    _, items, refs, _, associations, extents = meta_model(data)
    tmap = next(item for item, facts in items.items() if facts["type"] == "tmap")
    gain_item = next(targets for source, targets in refs.get("dimg", []) if source == tmap)[1]
    gain8 = imagecodecs.avif_decode(standalone_avif(data, associations[gain_item], extents[gain_item]))
    if gain8.ndim == 3:
        gain8 = gain8[..., :3] if isinstance(base.tmap_record(path)["min"], np.ndarray) else gain8[..., 0]
    return imagecodecs.avif_decode(data)[..., :3], gain8


def avif_rendition(output):
    """Structure facts and the HDR rendition (linear, SDR white = 1) of an AVIF with a gain map."""
    import pillow_heif
    data = open(output, "rb").read()
    aux = sorted(pillow_heif.open_heif(output).info.get("aux", {}))
    brands, items, refs, groups, associations, extents = meta_model(data)
    tmap = next(item for item, facts in items.items() if facts["type"] == "tmap")
    primary = struct.unpack(">H", data[data.index(b"pitm") + 8:data.index(b"pitm") + 10])[0]
    inputs = next(targets for source, targets in refs.get("dimg", []) if source == tmap)
    gain_item = inputs[1]
    aux_links = [(source, targets) for source, targets in refs.get("auxl", []) if source == gain_item]
    auxc = [raw[12:].split(b"\0")[0].decode() for kind, raw in associations[gain_item] if kind == "auxC"]
    facts = {
        "aux": aux, "tmap_brand": "tmap" in brands, "tmap_inputs": inputs == [primary, gain_item],
        "altr": ["altr", [tmap, primary]] in [[kind, ids] for kind, ids in groups],
        "auxl": aux_links == [(gain_item, [primary])], "auxC": auxc, "gain_map_hidden": items[gain_item]["hidden"],
        "gain_map_type": items[gain_item]["type"],
    }
    record = base.tmap_record(output)
    sdr8 = imagecodecs.avif_decode(data)[..., :3]
    gain8 = imagecodecs.avif_decode(standalone_avif(data, associations[gain_item], extents[gain_item]))
    gain8 = gain8[..., 0] if gain8.ndim == 3 else gain8
    height, width, _ = sdr8.shape
    facts["gain_map_size"] = [gain8.shape[1], gain8.shape[0]]
    sdr = base.srgb_to_linear(sdr8.astype(np.float32) / 255)
    hdr = (sdr + record["base_offset"]) * base.boost(gain8, height, width, record) - record["alternate_offset"]
    facts["tmap"] = record
    return facts, hdr


# --- JPEG XL --------------------------------------------------------------------------------

M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32


def pq_to_nits(e):
    p = np.clip(e, 0, 1) ** (1 / M2)
    return 10000 * (np.maximum(p - C1, 0) / (C2 - C3 * p)) ** (1 / M1)


def xyz_matrix(red, green, blue, white):
    """RGB → XYZ for chromaticities (x, y)."""
    columns = np.array([[x / y, 1, (1 - x - y) / y] for x, y in (red, green, blue)]).T
    w = np.array([white[0] / white[1], 1, (1 - white[0] - white[1]) / white[1]])
    return columns * np.linalg.solve(columns, w)


BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
D65, D50 = np.array([0.95047, 1, 1.08883]), np.array([0.96422, 1, 0.82521])


def to_d50(matrix):
    cone = np.diag((BRADFORD @ D50) / (BRADFORD @ D65))
    return np.linalg.inv(BRADFORD) @ cone @ BRADFORD @ matrix


BT2020_D50 = to_d50(xyz_matrix((0.708, 0.292), (0.170, 0.797), (0.131, 0.046), (0.3127, 0.3290)))
SRGB_D50 = to_d50(xyz_matrix((0.64, 0.33), (0.30, 0.60), (0.15, 0.06), (0.3127, 0.3290)))


def source_to_bt2020(source):
    """The linear-light matrix from SOURCE's primaries (its ICC colorants, D50 as ICC stores
    them; sRGB's without a profile) to BT.2020's."""
    icc = None
    if open(source, "rb").read(2) == b"\xff\xd8":
        icc = Image.open(source).info.get("icc_profile")
    else:
        import pillow_heif
        icc = pillow_heif.open_heif(source).info.get("icc_profile")
    matrix = SRGB_D50
    if icc:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc)).profile
        matrix = np.array([c[0] for c in (profile.red_colorant, profile.green_colorant, profile.blue_colorant)]).T
    return np.linalg.inv(BT2020_D50) @ matrix


def jxl_rendition(output):
    info = subprocess.run(["jxlinfo", output], capture_output=True, text=True, check=True).stdout
    facts = {"pq_2100": "Rec.2100 primaries, PQ transfer function" in info, "bits_16": "16-bit RGB" in info}
    signal, _ = still.djxl16(output)
    return facts, pq_to_nits(signal) / WHITE


def code_values(source, output):
    """A PQ or HLG still written as a JPEG XL that keeps its code values: the transfer and
    primaries jxlinfo states, and djxl's signal against pillow-heif's decode of SOURCE."""
    import pillow_heif
    nclx = pillow_heif.open_heif(source).info.get("nclx_profile") or {}
    _, _, name, wanted = still.source_light(source)
    info = subprocess.run(["jxlinfo", output], capture_output=True, text=True, check=True).stdout
    signal, transfer = still.djxl16(output)
    return {"transfer": {16: "PQ", 18: "HLG"}.get(transfer), "source_transfer": name,
            "rec2100": "Rec.2100 primaries" in info and nclx.get("color_primaries") == 9, "bits_16": "16-bit RGB" in info,
            "signal_psnr": psnr(signal, wanted, 1.0), "signal_max_error": float(np.abs(signal - wanted).max()),
            "width": signal.shape[1], "height": signal.shape[0]}


def is_hdr_still(source):
    """Whether SOURCE is a HEIF coded in PQ or HLG (no gain map)."""
    if open(source, "rb").read(2) == b"\xff\xd8":
        return False
    import pillow_heif
    return (pillow_heif.open_heif(source).info.get("nclx_profile") or {}).get("transfer_characteristics") in (16, 18)


def main():
    source, output = sys.argv[1], sys.argv[2]
    if is_hdr_still(source):
        print(json.dumps(code_values(source, output)))
        return
    _, sdr, reference, headroom, _ = base.source_reference(source)
    is_jxl = open(output, "rb").read(12) in (b"\x00\x00\x00\x0cJXL \r\n\x87\n",) or output.endswith(".jxl")
    if is_jxl:
        facts, hdr = jxl_rendition(output)
        matrix = source_to_bt2020(source).T
        reference, sdr = reference.astype(np.float64) @ matrix, sdr.astype(np.float64) @ matrix
    else:
        facts, hdr = avif_rendition(output)
    if hdr.shape != reference.shape:
        if abs(hdr.shape[1] / hdr.shape[0] - reference.shape[1] / reference.shape[0]) > 0.01:
            raise SystemExit(f"shape differs: {hdr.shape} vs {reference.shape}")
        size = (hdr.shape[1], hdr.shape[0])
        reference, sdr = base.shrink(reference.astype(np.float32), size), base.shrink(sdr.astype(np.float32), size)
    # no_boost_psnr: what a map that boosts nothing (or is lost) would score, for the test's threshold.
    facts.update({"width": hdr.shape[1], "height": hdr.shape[0], "headroom": headroom,
                  "hdr_psnr": psnr(hdr, reference, headroom), "no_boost_psnr": psnr(sdr, reference, headroom),
                  "peak_ratio": float(np.percentile(hdr, 99.9) / max(1e-6, np.percentile(reference, 99.9)))})
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
