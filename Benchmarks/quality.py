"""Quality beside every time: output sizes, SSIM and PSNR against the source, computed by ffmpeg's
ssim and psnr filters (not by offconvert), and which x264 rate control wrote a video.

Photos are compared in RGB (both pictures converted to planar RGB by ffmpeg, the SSIM and PSNR
"All"/"average" over R, G and B). The reference of a HEIF is its decode by heif-convert (libheif)
to PNG, made once per source; any other photo is its own reference, decoded by ffmpeg. Videos are
compared in 8-bit 4:2:0 at the source's size (an output made smaller is scaled back up with
bicubic, so a lower resolution costs what it costs), frame by frame after both start at 0; an HDR
source goes through the same zscale + tonemap chain first (the SDR picture a viewer should get).

Only the standard library: ffmpeg and heif-convert are run as programs, and a missing one gives
no figure (None), never an error.
"""
import hashlib
import os
import re
import shutil
import subprocess

_CACHE = {}


def have(tool):
    return shutil.which(tool) is not None


def output_bytes(paths):
    return sum(os.path.getsize(p) for p in paths if os.path.isfile(p))


def _digest(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dimensions(path):
    """(width, height) of the first video stream or picture, by ffprobe; None when unreadable."""
    if not have("ffprobe"):
        return None
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                          "-of", "csv=p=0", path], capture_output=True, text=True)
    try:
        w, h = out.stdout.strip().splitlines()[0].split(",")[:2]
        return int(w), int(h)
    except (ValueError, IndexError):
        return None


def _compare(output, reference, pre_out, pre_ref, fmt, as_stored=False):
    """Runs ffmpeg's ssim and psnr filters on `output` against `reference`, each through its own
    filters first, the output then scaled (bicubic) to the reference's size and both converted to
    `fmt`; returns (ssim, psnr), or (None, None) when ffmpeg cannot. `as_stored` compares pixels as
    stored, without ffmpeg's turn by a JPEG's EXIF orientation."""
    graph = (f"[0:v]{pre_out or 'null'}[o];[1:v]{pre_ref or 'null'}[r];[o][r]scale2ref=flags=bicubic[o2][r2];"
             f"[o2]format={fmt},split[a1][a2];[r2]format={fmt},split[b1][b2];[a1][b1]ssim;[a2][b2]psnr")
    rotate = ["-noautorotate"] if as_stored else []
    cmd = ["ffmpeg", "-hide_banner", "-nostats", *rotate, "-i", output, *rotate, "-i", reference,
           "-an", "-lavfi", graph, "-f", "null", "-"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, None
    ssim = re.search(r"SSIM .*All:([0-9.]+)", proc.stderr)
    psnr = re.search(r"PSNR .*average:([0-9.]+|inf)", proc.stderr)
    value = lambda m: None if m is None else (99.0 if m.group(1) == "inf" else float(m.group(1)))
    return value(ssim), value(psnr)


def photo_reference(source, work):
    """The picture `source` is compared with: a HEIF decoded by heif-convert to PNG (made once), any
    other photo itself. None when no independent decoder can read it."""
    with open(source, "rb") as f:
        head = f.read(32)
    if head[4:8] == b"ftyp":
        key = ("heif-ref", source)
        if key not in _CACHE:
            png = os.path.join(work, "quality-refs", _digest(source) + ".png")
            os.makedirs(os.path.dirname(png), exist_ok=True)
            ok = os.path.exists(png) or (have("heif-convert") and subprocess.run(
                ["heif-convert", source, png], capture_output=True).returncode == 0 and os.path.exists(png))
            # A file of several top-level images comes out as NAME-1.png, NAME-2.png…: heif-convert
            # does not say which is the primary, so there is no reference.
            _CACHE[key] = png if ok else None
        return _CACHE[key]
    return source


# Pictures larger than this are not compared (a 201 MP comparison takes gigabytes and minutes).
MAX_PIXELS = 60_000_000


def photo_quality(output, reference):
    """(ssim, psnr) of one photo output against its reference picture, in RGB. An output of another
    size (resized by a size search) is scaled to the reference's; an output turned a quarter
    (orientation applied by one tool and not the other) or a reference over MAX_PIXELS gives None
    rather than a meaningless or costly figure."""
    if reference is None or not have("ffmpeg"):
        return None, None
    key = ("photo", _digest(output), reference)
    if key in _CACHE:
        return _CACHE[key]
    out_size, ref_size = dimensions(output), dimensions(reference)
    if not out_size or not ref_size:
        result = (None, None)
    else:
        (ow, oh), (rw, rh) = out_size, ref_size
        if abs(ow / oh - rw / rh) > 0.02 or rw * rh > MAX_PIXELS:
            result = (None, None)
        else:
            # As stored: ffmpeg turns a JPEG by its EXIF orientation but never the PNG reference, so a
            # tool that keeps the tag (heif-convert) was scored against a quarter-turned picture
            # (SSIM 0.63); an output turned in its pixels is refused by the aspect check above.
            result = _compare(output, reference, None, None, "gbrp", as_stored=True)
    _CACHE[key] = result
    return result


def video_quality(output, source, ref_filter=None):
    """(ssim, psnr) of a video output against its source, in 8-bit 4:2:0 at the source's size (or
    the size `ref_filter` gives it: the tone-map chain of an HDR source, a GIF's frame rate and
    width), both timed from 0."""
    if not have("ffmpeg"):
        return None, None
    start = "settb=AVTB,setpts=PTS-STARTPTS"
    return _compare(output, source, start, f"{ref_filter + ',' if ref_filter else ''}{start}", "yuv420p")


def x264_settings(path, limit=4 << 20):
    """The options string x264 writes into the first frames it encodes (an SEI), or None."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
    except OSError:
        return None
    at = data.find(b"x264 - core")
    if at < 0:
        return None
    end = data.find(b"\x00", at)
    return data[at:end if end > 0 else at + 3000].decode("latin-1")


def _stream(path):
    """(codec, width, height, frame count) of the first video stream, by ffprobe."""
    if not have("ffprobe"):
        return None
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                          "stream=codec_name,width,height,nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True)
    line = out.stdout.strip()
    return line or None


def encode_mode(output, source=None):
    """How a video output was made, read from the file: "copied" when it carries the source's own
    x264 settings (or, with no x264 settings, the source's codec, size and packet count), "CRF 23",
    "2-pass 3205 kb/s" or "1-pass 3074 kb/s" (x264's average bitrate in one pass) from x264's,
    "not x264" otherwise."""
    settings = x264_settings(output)
    if settings is None:
        same = source is not None and _stream(output) is not None and _stream(output) == _stream(source)
        return "copied" if same else "not x264"
    if source is not None and x264_settings(source) == settings:
        return "copied"
    rc = re.search(r"\brc=(\w+)", settings)
    rc = rc.group(1) if rc else "?"
    if rc == "crf":
        crf = re.search(r"\bcrf=([0-9.]+)", settings)
        return f"CRF {float(crf.group(1)):g}" if crf else "CRF"
    if rc in ("2pass", "abr"):
        rate = re.search(r"\bbitrate=(\d+)", settings)
        passes = "2-pass" if rc == "2pass" else "1-pass"
        return f"{passes} {rate.group(1)} kb/s" if rate else passes
    return rc
