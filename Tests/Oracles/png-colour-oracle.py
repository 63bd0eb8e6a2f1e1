"""The sRGB pixels a PNG's colour chunks mean, computed independently of offconvert, compared
with a converted output.

    png-colour-oracle.py SOURCE OURS srgb|profile

SOURCE's samples are read by Pillow (which applies no colour chunk) and turned to sRGB by hand
from its own chunks: gAMA (the power law 1/gAMA to linear light), cHRM (the RGB to XYZ matrix of
its primaries and white point, PNG 3rd edition 11.3.2.3; then XYZ to sRGB, same D65 white) or
cICP (H.273 primaries 1, 9 or 12 with transfer 13, 8 or 1), by the PNG 3rd edition's precedence
(cICP, then sRGB, then gAMA/cHRM). With `srgb`, OURS' samples are compared as they are; with
`profile`, OURS is first converted from its embedded ICC profile to sRGB by littlecms (Pillow's
ImageCms). Prints the largest difference of any sample."""
import io
import struct
import sys

import numpy
from PIL import Image, ImageCms

SRGB_PRIMARIES = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
D65 = (0.3127, 0.3290)
H273_PRIMARIES = {
    1: SRGB_PRIMARIES,
    9: [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)],
    12: [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
}


def chunks(path):
    data = open(path, "rb").read()
    found, at = {}, 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        found.setdefault(kind.decode("latin-1"), data[at + 8:at + 8 + length])
        at += 12 + length
    return found


def to_xyz(primaries, white):
    """The RGB to XYZ matrix of `primaries` (x, y of red, green, blue) and `white`."""
    columns = numpy.array([[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]).T
    wx, wy = white
    scale = numpy.linalg.solve(columns, numpy.array([wx / wy, 1.0, (1 - wx - wy) / wy]))
    return columns * scale


def srgb_encode(linear):
    linear = numpy.clip(linear, 0, 1)
    return numpy.where(linear <= 0.0031308, linear * 12.92, 1.055 * numpy.power(linear, 1 / 2.4) - 0.055)


def srgb_decode(encoded):
    return numpy.where(encoded <= 0.04045, encoded / 12.92, numpy.power((encoded + 0.055) / 1.055, 2.4))


def expected(path):
    found = chunks(path)
    samples = numpy.asarray(Image.open(path).convert("RGB"), dtype=numpy.float64) / 255
    primaries, white = SRGB_PRIMARIES, D65
    if "cICP" in found:
        code, transfer = found["cICP"][0], found["cICP"][1]
        primaries = H273_PRIMARIES[code]
        linear = {13: srgb_decode, 8: lambda v: v, 1: lambda v: numpy.where(
            v < 0.081, v / 4.5, numpy.power((v + 0.099) / 1.099, 1 / 0.45))}[transfer](samples)
    elif "sRGB" in found:
        return numpy.round(samples * 255)
    else:
        gamma = struct.unpack(">I", found["gAMA"])[0] / 100000 if "gAMA" in found else None
        linear = numpy.power(samples, 1 / gamma) if gamma else srgb_decode(samples)
        if "cHRM" in found:
            values = [v / 100000 for v in struct.unpack(">8I", found["cHRM"])]
            white = (values[0], values[1])
            primaries = [(values[2], values[3]), (values[4], values[5]), (values[6], values[7])]
    assert abs(white[0] - D65[0]) < 1e-3 and abs(white[1] - D65[1]) < 1e-3, "only a D65 white is computed"
    matrix = numpy.linalg.inv(to_xyz(SRGB_PRIMARIES, D65)) @ to_xyz(primaries, white)
    return numpy.round(srgb_encode(linear @ matrix.T) * 255)


def ours(path, mode):
    image = Image.open(path).convert("RGB") if mode == "srgb" else Image.open(path)
    if mode == "profile":
        profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
        image = ImageCms.profileToProfile(
            image.convert("RGB"), profile, ImageCms.createProfile("sRGB"), renderingIntent=0, outputMode="RGB")
    return numpy.asarray(image, dtype=numpy.float64)


source, output, mode = sys.argv[1:4]
print(int(numpy.abs(expected(source) - ours(output, mode)).max()))
