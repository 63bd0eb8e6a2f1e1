"""The benchmark workloads: what offconvert does, next to what a user would run instead.

Each entry of CATALOGUE names the workloads one builder makes; a builder prepares its inputs
under the benchmark's work folder (real media from ../shared/media when present, committed
TestMedia or generated clips otherwise) and lists contenders: offconvert first, then each peer
with settings matched to ours as closely as the tools allow. Only the chosen workloads are
prepared, so `--only` does not pay for generating the others' inputs.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from harness import Contender, Workload, media, fresh_dir, ROOT, CORES

TESTMEDIA = os.path.join(ROOT, "TestMedia")


def have(tool):
    return shutil.which(tool) is not None


def out_dir(work, name):
    path = os.path.join(work, name)
    return path, (lambda: fresh_dir(path))


def real_or_test(name):
    """The real clip or photo from ../shared/media, else the committed TestMedia copy."""
    return (media(name) or [os.path.join(TESTMEDIA, name)])[0]


def size_of(pattern):
    return lambda: "output " + ", ".join(f"{os.path.getsize(p) / 1000:.0f} kB" for p in sorted(glob.glob(pattern)))


def duration_of(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", path],
                         capture_output=True, text=True, check=True).stdout
    return float(json.loads(out)["format"]["duration"])


def looped(source, times, path):
    """`source` played `times` times in a row, copied without re-encoding: real footage long
    enough that the per-frame work, not the fixed start-up, decides the time."""
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", str(times - 1), "-i", source, "-map", "0:v:0",
                        "-map", "0:a:0?", "-c", "copy", path], check=True)
    return path


def heic(work, binary, quick):
    """~50 real iPhone HEICs (the real ones repeated)."""
    src = media("photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic",
                "photos/empty_icc.heic", "photos/sample_still_photo.heic")
    if not src:
        src = sorted(glob.glob(os.path.join(TESTMEDIA, "photos", "*.heic")) +
                     glob.glob(os.path.join(TESTMEDIA, "photos", "*.HEIC")))
    folder = os.path.join(work, "heic-in")
    fresh_dir(folder)
    count = 10 if quick else 50
    for i in range(count):
        shutil.copy(src[i % len(src)], os.path.join(folder, f"photo{i:03d}.heic"))
    o, reset = out_dir(work, "heic-out")
    contenders = [
        Contender("offconvert heic-to-jpg (batch)", f"{binary} heic-to-jpg {folder}/*.heic --output-dir {o} --quality 90 --quiet", ours=True, reset=reset),
        Contender("heif-convert, one by one", f"for f in {folder}/*.heic; do heif-convert -q 90 \"$f\" {o}/$(basename \"$f\" .heic).jpg >/dev/null; done", reset=reset),
        Contender(f"heif-convert, xargs -P{CORES}", f"ls {folder}/*.heic | xargs -P{CORES} -I{{}} sh -c 'heif-convert -q 90 \"{{}}\" {o}/$(basename \"{{}}\" .heic).jpg >/dev/null'", reset=reset),
    ]
    if have("vips"):
        contenders.append(Contender("vips copy, one by one", f"for f in {folder}/*.heic; do vips copy \"$f\" {o}/$(basename \"$f\" .heic).jpg[Q=90]; done", reset=reset))
    if have("convert-im6.q16"):
        contenders.append(Contender("ImageMagick convert, one by one", f"for f in {folder}/*.heic; do convert-im6.q16 \"$f\" -quality 90 {o}/$(basename \"$f\" .heic).jpg; done", reset=reset))
    return [Workload("heic", f"HEIC → JPEG, {count} iPhone photos, quality 90", contenders),
            heic_floor(work, binary, folder, count)]


# Kinds of HEIF other cameras write, laid out by TestMedia/generators/heif_layout.py around images
# heif-enc codes from a real photo: (name, title, canvas cols x rows x tile w x h, picture, layout
# options, heif-enc options, 16-bit source).
CAMERA_KINDS = [
    ("heic-overhang", "Nokia-like grid: 9x7 tiles of 512 cropped to 4608x3456, irot, no colour box",
     (9, 7, 512, 512), "4608x3456", ["--irot", "1"], [], False),
    ("heic-bt601-limited", "Nokia HDR-like grid: the same overhanging grid, nclx BT.601 matrix 5 limited range only",
     (9, 7, 512, 512), "4608x3456", ["--nclx", "5,6,5,0"],
     ["--colour_primaries", "5", "--transfer_characteristic", "6", "--matrix_coefficients", "5", "--full_range_flag", "0"], False),
    ("heic-10bit", "Sony-like 10-bit grid: 2x3 tiles of 3520x1600 cropped to 7008x4672, nclx matrix 5, irot",
     (2, 3, 3520, 1600), "7008x4672", ["--irot", "3", "--nclx", "1,13,5,1"], ["-b", "10", "--matrix_coefficients", "5"], True),
    ("heic-single", "Android-like single image without a grid: 4000x3000, nclx BT.709 limited range",
     (1, 1, 4000, 3000), "4000x3000", ["--nclx", "1,1,1,0"],
     ["--colour_primaries", "1", "--transfer_characteristic", "1", "--matrix_coefficients", "1", "--full_range_flag", "0"], False),
]


def camera_heic(work, kind):
    """The HEIF of one CAMERA_KINDS entry, generated once (coding a camera-sized grid tile by tile
    takes minutes) and kept under .build/bench-heic for later runs; `work` is unused."""
    name, _, (cols, rows, tw, th), picture, layout, encode, deep = kind
    folder = os.path.join(ROOT, ".build", "bench-heic")
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, f"{name}.heic")
    if os.path.exists(target):
        return target
    source = real_or_test("photos/Kleiber_by_Lukas_Baubkus.jpg")
    canvas = os.path.join(folder, f"{name}-canvas.png")
    fmt = "rgb48be" if deep else "rgb24"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", source, "-vf", f"scale={cols * tw}:{rows * th}", "-frames:v", "1",
                    "-pix_fmt", fmt, canvas], check=True)
    coded = []
    for r in range(rows):
        for c in range(cols):
            tile = os.path.join(folder, f"{name}-{r}-{c}")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", canvas, "-vf", f"crop={tw}:{th}:{c * tw}:{r * th}",
                            "-pix_fmt", fmt, tile + ".png"], check=True)
            subprocess.run(["heif-enc", "-q", "90", "-p", "x265:pools=none", *encode, "-o", tile + ".heic", tile + ".png"], check=True,
                           stdout=subprocess.DEVNULL)
            coded.append(tile + ".heic")
    grid = ["--grid", f"{cols}x{rows}"] if cols * rows > 1 else []
    subprocess.run([sys.executable, os.path.join(TESTMEDIA, "generators", "heif_layout.py"), target, "--picture", picture,
                    *grid, *layout, *coded], check=True)
    for path in coded + [canvas] + [p[:-5] + ".png" for p in coded]:
        os.remove(path)
    return target


def heic_kinds(work, binary, quick):
    """One photo of each kind cameras other than iPhones write, one row per kind: the real
    Samsung, Xiaomi and Canon HEIFs, and generated camera-sized layouts (CAMERA_KINDS)."""
    photos = [(kind[0], kind[1], lambda kind=kind: camera_heic(work, kind)) for kind in CAMERA_KINDS]
    floor = decode_floor(binary)
    for name, title, real in [("heic-samsung", "Samsung grid: 6x8 tiles of 512, 3024x4032, no colour box", "photos/Issue_487.heic"),
                              ("heic-xiaomi", "Xiaomi grid, 2592x1944", "photos/xiaomi.heic"),
                              ("heic-canon", "Canon 10-bit 4:2:2 PQ grid, 2400x1600", "photos/hdr/Canon.HIF")]:
        photos.append((name, title, lambda real=real: real_or_test(real)))
    workloads = []
    for name, title, make in photos:
        if CHOSEN and name not in CHOSEN:
            continue  # a generated kind takes minutes to make: only the rows asked for
        path = make()
        if not os.path.exists(path):
            continue
        o, reset = out_dir(work, f"{name}-out")
        contenders = [
            Contender("offconvert heic-to-jpg", f"{binary} heic-to-jpg {path} --output-dir {o} --quality 85 --quiet", ours=True, reset=reset),
            Contender("heif-convert -q 85", f"heif-convert -q 85 {path} {o}/out.jpg >/dev/null", reset=reset),
        ]
        if have("vips"):
            contenders.append(Contender("vips copy", f"vips copy {path} {o}/vips.jpg[Q=85]", reset=reset))
        if have("convert-im6.q16"):
            contenders.append(Contender("ImageMagick convert", f"convert-im6.q16 {path} -quality 85 {o}/im.jpg", reset=reset))
        contenders += [Contender("decode only, same code (floor)", f"{floor} {path}"),
                       Contender("decode only with libheif (heif-convert's floor)", f"{floor} --libheif {path}")]
        workloads.append(Workload(name, f"HEIC → JPEG, one photo: {title}, quality 85", contenders, note=KIND_NOTE))
    return workloads


KIND_NOTE = ("The floor rows decode the photo and write nothing (`heic-decode-floor`, the product's threads): with the "
             "product's decoder (tiles straight to YCbCr planes; to RGB where the photo does not take the direct "
             "path, as a PQ or HLG still that is tone mapped), and with libheif, the decode heif-convert pays for. The "
             "issue's goal is heif-convert's time / ours ≥ 1.25; where heif-convert's time / the product's floor is "
             "itself under 1.25, no encoder could reach it with this decoder.")


def heic_mixed_batch(work, binary, quick):
    """A batch of 12 HEIFs of mixed kinds, grids and single images (the generated CAMERA_KINDS and
    real iPhone, Samsung and Xiaomi photos, repeated to 12), against heif-convert and vips run
    one per core with xargs: the issue asks for at least 1.25x over `xargs -P<cores> heif-convert`."""
    photos = [camera_heic(work, kind) for kind in CAMERA_KINDS]
    photos += [real_or_test(name) for name in ["photos/IMG_5195.HEIC", "photos/Issue_487.heic", "photos/xiaomi.heic",
                                               "photos/pug.heic"]]
    photos = [p for p in photos if os.path.exists(p)]
    folder = os.path.join(work, "heic-mixed-in")
    fresh_dir(folder)
    for i in range(12):
        shutil.copy(photos[i % len(photos)], os.path.join(folder, f"photo{i:02d}.heic"))
    o, reset = out_dir(work, "heic-mixed-out")
    each = f"ls {folder}/*.heic | xargs -P{CORES} -I{{}} sh -c"
    contenders = [
        Contender("offconvert heic-to-jpg (batch)", f"{binary} heic-to-jpg {folder}/*.heic --output-dir {o} --quality 85 --quiet", ours=True, reset=reset),
        Contender(f"heif-convert -q 85, xargs -P{CORES}", f"{each} 'heif-convert -q 85 \"{{}}\" {o}/$(basename \"{{}}\" .heic).jpg >/dev/null'", reset=reset),
    ]
    if have("vips"):
        contenders.append(Contender(f"vips copy, xargs -P{CORES}", f"{each} 'vips copy \"{{}}\" {o}/$(basename \"{{}}\" .heic).jpg[Q=85]'", reset=reset))
    if have("convert-im6.q16"):
        contenders.append(Contender(f"ImageMagick convert, xargs -P{CORES}", f"{each} 'convert-im6.q16 \"{{}}\" -quality 85 {o}/$(basename \"{{}}\" .heic).jpg'", reset=reset))
    return [Workload("heic-mixed", f"HEIC → JPEG, a batch of 12 photos of mixed kinds (4 generated camera kinds, iPhone, Samsung, Xiaomi), quality 85", contenders)]


def decode_floor(binary):
    """`heic-decode-floor`, built in release mode beside `binary`."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "heic-decode-floor"], cwd=ROOT, check=True)
    return os.path.join(os.path.dirname(binary), "heic-decode-floor")


def heic_floor(work, binary, folder, count):
    """The HEIC batch against its decode-only floor: `heic-decode-floor` decodes the same photos
    with the product's own code and jobs/threads split, and writes nothing; with `--libheif` it
    decodes them with libheif instead, the decode every libheif-based tool pays for (and the
    product's own decode until the tiles went straight to YCbCr). The issue's bar is a floor ratio
    of at least 0.952 (the batch within 5% of the floor)."""
    floor = decode_floor(binary)
    o, reset = out_dir(work, "heic-floor-out")
    return Workload("heic-floor", f"HEIC → JPEG, {count} iPhone photos, against the decode-only floor", [
        Contender("offconvert heic-to-jpg (batch)", f"{binary} heic-to-jpg {folder}/*.heic --output-dir {o} --quality 90 --quiet", ours=True, reset=reset),
        Contender("decode only, same code and split (floor)", f"{floor} {folder}/*.heic"),
        Contender("decode only with libheif, same split", f"{floor} --libheif {folder}/*.heic"),
    ], note="A floor's ratio is floor time / batch time: 1 would mean encoding, metadata and writing cost nothing; "
            "the issue asks for at least 0.952. All use the default jobs (one per core) and the same decoding threads. "
            "The libheif row decodes an iPhone grid the way libheif does (tiles converted to RGB and assembled), "
            "which the product no longer does: a ratio above 1 there means the whole conversion costs less than libheif's decode alone.")


def photo_size(work, binary, quick):
    photo = (media("photos/Kleiber_by_Lukas_Baubkus.jpg") or [os.path.join(TESTMEDIA, "photos", "tokyo.jpg")])[0]
    o, reset = out_dir(work, "compress-out")
    target_kb = 500 if "Kleiber" in photo else 60
    contenders = [Contender(f"offconvert compress-photos --target-size {target_kb}KB",
                            f"{binary} compress-photos {photo} --target-size {target_kb}KB --output-dir {o} --quiet",
                            ours=True, reset=reset, measure=size_of(f"{o}/*"))]
    if have("convert-im6.q16"):
        contenders.append(Contender(f"ImageMagick -define jpeg:extent={target_kb}kb", f"convert-im6.q16 {photo} -define jpeg:extent={target_kb}kb {o}/im.jpg", reset=reset, measure=size_of(f"{o}/*")))
    if have("cwebp"):
        contenders.append(Contender(f"cwebp -size {target_kb * 1000}", f"cwebp -quiet -size {target_kb * 1000} {photo} -o {o}/c.webp", reset=reset, measure=size_of(f"{o}/*")))
    webp_kb = 300 if "Kleiber" in photo else 40
    webp = [Contender(f"offconvert compress-photos --to webp --target-size {webp_kb}KB",
                      f"{binary} compress-photos {photo} --to webp --target-size {webp_kb}KB --output-dir {o} --quiet",
                      ours=True, reset=reset, measure=size_of(f"{o}/*"))]
    if have("cwebp"):
        webp.append(Contender(f"cwebp -size {webp_kb * 1000}", f"cwebp -quiet -size {webp_kb * 1000} {photo} -o {o}/c.webp", reset=reset, measure=size_of(f"{o}/*")))
    return [Workload("photo-size", f"Photo to ≤ {target_kb} kB ({os.path.basename(photo)})", contenders),
            Workload("photo-size-webp", f"Photo to WebP ≤ {webp_kb} kB ({os.path.basename(photo)})", webp)]


def h264(work, binary, quick):
    clip = real_or_test("video/motion.mov")
    o, reset = out_dir(work, "transcode-out")
    # offconvert copies the AAC track as it is, so ffmpeg copies it too (re-encoding it, as this
    # workload once did, gave ffmpeg extra work and flattered offconvert). offconvert keeps every
    # frame with its own timestamp; ffmpeg's default for MP4 is constant frame rate, which
    # duplicates frames of variable-rate phone clips (66 extra on the looped PQ clip), so it
    # gets -fps_mode passthrough (FFmpeg 5.1's name for -vsync passthrough).
    return [Workload("h264", f"Transcode to H.264 CRF 23 medium, AAC copied ({os.path.basename(clip)})", [
        Contender("offconvert convert --to mp4 --codec h264", f"{binary} convert {clip} --to mp4 --codec h264 --crf 23 --output-dir {o} --quiet", ours=True, reset=reset),
        Contender("ffmpeg CLI", f"ffmpeg -v error -y -i {clip} -map 0:v:0 -map 0:a:0? -fps_mode passthrough -c:v libx264 -preset medium -crf 23 -pix_fmt yuv420p -c:a copy -movflags +faststart {o}/ff.mp4", reset=reset),
    ])]


def tonemap_filter(transfer):
    """offconvert's own chain (ToneMapDecision.filter), so both tools do exactly the same work."""
    return (f"zscale=tin={transfer}:min=bt2020nc:pin=bt2020:rin=tv:t=linear:npl=100,format=gbrpf32le,"
            "zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p")


def tonemap_workload(name, title, clip, transfer, o, reset, binary, note=""):
    return Workload(name, title, [
        Contender("offconvert send-to-windows", f"{binary} send-to-windows {clip} --output-dir {o} --quiet", ours=True, reset=reset),
        Contender("ffmpeg CLI, same zscale+tonemap chain", f"ffmpeg -v error -y -i {clip} -map 0:v:0 -map 0:a:0? -vf {tonemap_filter(transfer)} "
                  f"-fps_mode passthrough -c:v libx264 -preset faster -crf 23 -color_primaries bt709 -color_trc bt709 -colorspace bt709 -color_range tv "
                  f"-c:a copy -movflags +faststart {o}/ff.mp4", reset=reset),
    ], note=note)


def tonemap(work, binary, quick):
    hlg = real_or_test("video/hlg10-color-test.mp4")
    o, reset = out_dir(work, "tonemap-out")
    return [tonemap_workload(
        "tonemap", f"HDR (HLG) → SDR H.264, 9 frames 1080p ({os.path.basename(hlg)})", hlg, "arib-std-b67", o, reset, binary,
        note="Nine frames: start-up, probing and encoder set-up decide this one, not the per-frame work (see tonemap-pq). "
             "offconvert tone maps with its table (sampled once per clip from the same zscale+Hable chain, ≥ 46 dB "
             "from it on every HDR test clip); ffmpeg runs the chain itself. Same x264 preset/CRF and threads; both "
             "keep every frame's timestamp and copy the AAC track.")]


def tonemap_pq(work, binary, quick):
    source = real_or_test("video/hdr10-video-with-sdr-container.mp4")
    times = 2 if quick else 4
    clip = looped(source, times, os.path.join(work, f"hdr10-pq-x{times}.mp4"))
    o, reset = out_dir(work, "tonemap-pq-out")
    workload = tonemap_workload(
        "tonemap-pq", f"HDR10 (PQ) → SDR H.264, {28 * times} frames 1080p (a real 1 s clip played {times}×)", clip, "smpte2084",
        o, reset, binary, note="Long enough for the per-frame work (decode, tone map, x264) to dominate. offconvert tone maps with its table, ffmpeg with the zscale+tonemap chain the table is sampled from. Same frames, x264 options and threads; the pictures differ slightly because ffmpeg rounds this variable-rate clip's timestamps to 1/30 s (offconvert keeps them exact) and x264's rate control weighs frame durations. "
        "RSS: the x264 row is the x264 CLI alone (`--preset faster --crf 23`, its default threads, as both tools use) encoding the same frames already tone mapped to 8-bit 4:2:0 (a Y4M file made once): no decoder, no filter, no muxer. Its peak is the memory floor of any tool that encodes this clip with these x264 settings; the decoder and the table stage alone peak at ~130 MiB (see tonemap-stage-pq).")
    if have("x264"):
        frames = os.path.join(work, f"hdr10-pq-x{times}-sdr.y4m")
        if not os.path.exists(frames):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-vf", tonemap_filter("smpte2084"),
                            "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", frames], check=True)
        workload.contenders.append(Contender("x264 CLI alone on the tone-mapped frames (memory floor)",
                                             f"x264 --quiet --preset faster --crf 23 -o {o}/x264.264 {frames}", reset=reset))
    return [workload]


def tonemap_stage(work, binary, quick):
    """The tone-map stage alone (no encoder): offconvert's table tone mapper against the zscale
    float chain, both after the same decode. `tonemap-floor` decodes with the product's decoder
    settings and tone maps each frame by the table or by FFmpeg's zscale chain (in-process,
    the same graph the product would build), writing nothing; the ffmpeg CLI rows run the same
    chain into `-f null`. The stage's own cost is each row's CPU minus its decode-only row."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "tonemap-floor"], cwd=ROOT, check=True)
    floor = os.path.join(os.path.dirname(binary), "tonemap-floor")
    source = real_or_test("video/hdr10-video-with-sdr-container.mp4")
    times = 2 if quick else 4
    clip = looped(source, times, os.path.join(work, f"hdr10-pq-x{times}.mp4"))
    hlg = real_or_test("video/hlg10-color-test.mp4")
    hlg_times = 4 if quick else 9
    hlg_clip = looped(hlg, hlg_times, os.path.join(work, f"hlg-x{hlg_times}.mp4"))
    workloads = []
    for name, title, path, transfer in [
            ("tonemap-stage-pq", f"Tone-map stage alone, HDR10 (PQ) 1080p, {28 * times} frames", clip, "smpte2084"),
            ("tonemap-stage-hlg", f"Tone-map stage alone, HLG 1080p, {9 * hlg_times} frames", hlg_clip, "arib-std-b67")]:
        workloads.append(Workload(name, title, [
            Contender("offconvert table (tonemap-floor table)", f"{floor} table {path}", ours=True),
            Contender("offconvert table, scalar kernel (tonemap-floor table-scalar: a CPU without AVX2)",
                      f"{floor} table-scalar {path}"),
            Contender("zscale chain in-process (tonemap-floor zscale)", f"{floor} zscale {path}"),
            Contender("decode only (tonemap-floor decode)", f"{floor} decode {path}"),
            Contender("ffmpeg CLI, zscale chain to -f null",
                      f"ffmpeg -v error -i {path} -map 0:v:0 -vf {tonemap_filter(transfer)} -fps_mode passthrough -f null -"),
            Contender("ffmpeg CLI, decode only to -f null", f"ffmpeg -v error -i {path} -map 0:v:0 -fps_mode passthrough -f null -"),
        ], note="Stage CPU = a row's CPU s minus its decode-only row's (tonemap-floor rows: the product's decoder; "
                "ffmpeg rows: ffmpeg's). The goal is the table's stage ≥ 3× cheaper than the zscale chain's."))
    return workloads


def remux(work, binary, quick):
    clip = (media("video/ChID-BLITS-EBU.mp4") or [os.path.join(TESTMEDIA, "video", "motion.mov")])[0]
    o, reset = out_dir(work, "remux-out")
    return [Workload("remux", f"Passthrough remux ({os.path.basename(clip)}, {os.path.getsize(clip) / 1e6:.1f} MB)", [
        Contender("offconvert send-to-windows (passthrough)", f"{binary} send-to-windows {clip} --output-dir {o} --quiet", ours=True, reset=reset),
        Contender("ffmpeg -c copy", f"ffmpeg -v error -y -i {clip} -map 0:v:0 -map 0:a:0? -c copy -movflags +faststart {o}/ff.mp4", reset=reset),
        Contender("cp", f"cp {clip} {o}/copy.mp4", reset=reset),
    ], note="A 1 MB file: the copy itself takes a few ms, so this measures each tool's fixed cost per file. "
            "`offconvert` is a ~2 ms launcher that starts the video engine, `offconvert-media`, whose start-up is even "
            "with ffmpeg's (~64 ms of CPU, mostly the dynamic loader); photo commands start the lighter "
            "`offconvert-photo` instead, which links no FFmpeg. The rest of offconvert's extra time is its "
            "guarantees, not the copy: about 10 ms of CPU for the daily-allowance record "
            "(HMAC-sealed), the resume journal (SHA-256-named JSON lines), Swift runtime set-up and libheif's load-time "
            "de265_init (~2 ms), plus 5 fsync or fdatasync calls (the allowance reservation, the journal's start line, the "
            "staged output before it is moved into place, and the charge with its folder; a reservation skips the folder "
            "sync and the journal's finish line is not synced, which took this from 9 syncs to 5). Every run starts from "
            "a used state folder, as a user's install is. With fsync made a no-op offconvert's wall time is within 3 % of "
            "ffmpeg's; each fsync waits for the file system's journal, which is most of the remaining gap. ffmpeg "
            "writes its output in place and syncs nothing.")]


def remux_large(work, binary, quick):
    """A passthrough remux of a file over 200 MB, where the copy itself dominates, not start-up."""
    source = real_or_test("video/ChID-BLITS-EBU.mp4")
    clip = os.path.join(work, "remux-large.mp4")
    if not os.path.exists(clip):
        # The real 1 MB clip played 200 times over: stream-copied, so deterministic and made in seconds.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "200", "-i", source, "-c", "copy",
                        "-movflags", "+faststart", clip], check=True)
    o, reset = out_dir(work, "remux-large-out")
    return [Workload("remux-large", f"Passthrough remux of {os.path.getsize(clip) / 1e6:.0f} MB (a real clip looped)", [
        Contender("offconvert send-to-windows (passthrough)", f"{binary} send-to-windows {clip} --output-dir {o} --quiet", ours=True, reset=reset),
        Contender("offconvert, fsync made a no-op (eatmydata)", f"eatmydata {binary} send-to-windows {clip} --output-dir {o} --quiet", reset=reset),
        Contender("ffmpeg -c copy", f"ffmpeg -v error -y -i {clip} -map 0:v:0 -map 0:a:0? -c copy -movflags +faststart {o}/ff.mp4", reset=reset),
        Contender("cp", f"cp {clip} {o}/copy.mp4", reset=reset),
    ], note="The eatmydata row is offconvert with every fsync/fdatasync turned into a no-op: the difference from the first "
            "row is what durability costs (the staged output is synced before it is renamed into place, then its folder); "
            "ffmpeg writes in place and syncs nothing.")]


def gif(work, binary, quick):
    clip = real_or_test("video/bikes.mp4")
    o, reset = out_dir(work, "gif-out")
    return [Workload("gif", f"GIF, 12 fps, 480 px wide ({os.path.basename(clip)})", [
        Contender("offconvert gif", f"{binary} gif {clip} --fps 12 --width 480 --output-dir {o} --quiet", ours=True, reset=reset, measure=size_of(f"{o}/*")),
        Contender("ffmpeg palettegen/paletteuse", f"ffmpeg -v error -y -i {clip} -vf \"fps=12,scale=480:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=sierra2_4a\" {o}/ff.gif", reset=reset, measure=size_of(f"{o}/*")),
    ])]


def big_photo_batch(work, binary, quick):
    """Big real photos plus a generated ~200 MP JPEG, converted with a 1 GB memory budget; the
    result column shows peak RSS against that budget (the scheduler admits by decoded pixels)."""
    folder = os.path.join(work, "big-in")
    fresh_dir(folder)
    sources = media("photos/Elephants_5640x3172.jpg", "photos/Kleiber_by_Lukas_Baubkus.jpg",
                    "photos/Patak_5120x2880_render.png", "photos/pug.heic")
    if not sources:
        sources = [os.path.join(TESTMEDIA, "photos", "pug.heic"), os.path.join(TESTMEDIA, "photos", "cat.hif")]
    for i, src in enumerate(sources * (1 if quick else 2)):
        shutil.copy(src, os.path.join(folder, f"{i:02d}-{os.path.basename(src)}"))
    huge = os.path.join(folder, "99-huge-200MP.jpg")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=16384x12288", "-frames:v", "1",
                    "-q:v", "5", huge], check=True)
    o, reset = out_dir(work, "big-out")
    budget = "1GB"
    contenders = [Contender(f"offconvert convert --to jpg --memory-budget {budget}",
                            f"{binary} convert {folder}/* --to jpg --output-dir {o} --memory-budget {budget} --quiet",
                            ours=True, reset=reset, measure=lambda: f"budget {budget}")]
    if have("vips"):
        contenders.append(Contender(f"vips copy, xargs -P{CORES}",
                                    f"ls {folder}/* | xargs -P{CORES} -I{{}} sh -c 'vips copy \"{{}}\" {o}/$(basename \"{{}}\").jpg'",
                                    reset=reset))
    return [Workload("bigbatch", "Big-photo batch incl. a generated 201 MP JPEG (peak memory vs a 1 GB budget)", contenders,
                     note="Peak RSS is the point here: the scheduler admits items by decoded pixels in flight, so the "
                          "201 MP photo (≈800 MB decoded) runs alone while the others wait. vips is faster and smaller: "
                          "it streams the JPEG in tiles, while offconvert holds each whole bitmap (it needs them whole "
                          "for orientation, ICC conversion and the size search).")]


# HandBrake's own presets for a size limit. Each is built for a fixed length (3 minutes) with an
# average bitrate capped by VBV (vbv-maxrate = the average); for a shorter clip its users set the
# bitrate from the usual formula, so the preset's bitrate and VBV cap are scaled to it and its
# other x264 settings kept. (HandBrake dropped its own target-size option.)
HANDBRAKE_PRESETS = {25: "Email 25 MB 3 Minutes 720p30", 8: "Social 8 MB 3 Minutes 360p30"}


def handbrake_extra(preset, work):
    """The preset's own VideoOptionExtra (x264 options) without its VBV cap, from HandBrakeCLI's export."""
    path = os.path.join(work, "handbrake-preset.json")
    try:
        subprocess.run(["HandBrakeCLI", "--preset", preset, "--preset-export", "bench", "--preset-export-file", path,
                        "-i", "/dev/null", "-o", "/dev/null"], capture_output=True, timeout=60)
        with open(path) as f:
            extra = json.load(f)["PresetList"][0].get("VideoOptionExtra", "")
    except (OSError, ValueError, KeyError, IndexError, subprocess.SubprocessError):
        extra = ""
    finally:
        if os.path.exists(path): os.remove(path)
    return ":".join(o for o in extra.split(":") if o and not o.startswith(("vbv-maxrate=", "vbv-bufsize=")))


def video_size(work, binary, quick):
    """Compress to 25 MB and 8 MB, scaled to a short clip: the targets are the bitrate that 25 MB and
    8 MB give a minute of video (3.3 and 1.07 Mb/s), times the clip's length, so every encoder
    faces the same bits per second as with a one-minute clip in a fraction of the time."""
    clip = os.path.join(work, "compress-master-720p.mp4")
    bbb = media("video/bigbuckbunny.mp4")
    if bbb:
        # Big Buck Bunny's real 5.3 s 720p25 clip played 3× (15.9 s), stored at a phone camera's
        # bitrate (x264 CRF 12, ~12 Mb/s) so it is well over both targets; constant 25 fps, so the
        # peers' two passes see the same frames.
        source = ["-stream_loop", "2", "-i", bbb[0], "-map", "0:v:0", "-map", "0:a:0?"]
        what = "Big Buck Bunny 720p25 + AAC, a real 5.3 s clip played 3× and stored at ~12 Mb/s"
    else:
        source = ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=16", "-f", "lavfi",
                  "-i", "sine=frequency=440:sample_rate=48000:duration=16", "-vf", "noise=alls=12:allf=t"]
        what = "generated 720p25 test pattern with noise + AAC"
    if not os.path.exists(clip):
        subprocess.run(["ffmpeg", "-v", "error", "-y", *source, "-r", "25", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-c:a", "aac", "-b:a", "160k",
                        clip], check=True)
    seconds = duration_of(clip)
    workloads = []
    for per_minute in (25, 8):
        target = int(per_minute * 1_000_000 * seconds / 60)
        o, reset = out_dir(work, f"video-size-{per_minute}-out")
        video_kbps = int(target * 8 / seconds / 1000) - 128
        log = os.path.join(work, f"ff2pass-{per_minute}")

        def achieved(pattern, target=target):
            def measure():
                sizes = [os.path.getsize(p) for p in sorted(glob.glob(pattern))]
                return "output " + ", ".join(f"{b / 1e6:.3f} MB ({b / target:.1%} of target, {'OVER' if b > target else 'under'})" for b in sizes)
            return measure
        contenders = [
            Contender(f"offconvert compress --target {target}",
                      f"{binary} compress {clip} --target {target}B --output-dir {o} --quiet",
                      ours=True, reset=reset, measure=achieved(f"{o}/*.mp4")),
            Contender(f"ffmpeg 2-pass x264 medium, -b:v {video_kbps}k",
                      f"ffmpeg -v error -y -i {clip} -c:v libx264 -preset medium -b:v {video_kbps}k -passlogfile {log} -pass 1 -an -f null - && "
                      f"ffmpeg -v error -y -i {clip} -c:v libx264 -preset medium -b:v {video_kbps}k -passlogfile {log} -pass 2 "
                      f"-c:a aac -b:a 128k -movflags +faststart {o}/ff.mp4",
                      reset=reset, measure=achieved(f"{o}/*.mp4")),
        ]
        if have("HandBrakeCLI"):
            preset = HANDBRAKE_PRESETS[per_minute]
            extra = handbrake_extra(preset, work)
            encopts = ":".join(o for o in (extra, f"vbv-maxrate={video_kbps}", f"vbv-bufsize={video_kbps * 10}") if o)
            contenders.append(Contender(
                f"HandBrakeCLI \"{preset}\", -b {video_kbps}",
                f"HandBrakeCLI -i {clip} -o {o}/hb.mp4 --preset '{preset}' -b {video_kbps} -x '{encopts}' -B 128 2>/dev/null",
                reset=reset, measure=achieved(f"{o}/*.mp4")))
        workloads.append(Workload(
            f"video-size-{per_minute}",
            f"Video to {per_minute} MB per minute: ≤ {target / 1e6:.2f} MB for {seconds:.1f} s ({what})", contenders,
            note=f"The target is what {per_minute} MB gives one minute of video ({per_minute * 8 / 60:.2f} Mb/s in all), "
                 f"scaled to this {seconds:.1f} s clip so a run takes seconds, not minutes. The peers get the usual "
                 f"formula: video kb/s = target × 8 / duration − 128 kb/s audio; HandBrake's preset (two passes, VBV "
                 f"cap = average bitrate) with its bitrate and cap set to that, and its picture cap "
                 f"({'720p' if per_minute == 25 else '360p'}) kept; offconvert lowers the resolution itself only when "
                 "the bitrate is too low for it. Result column: achieved size and share of the target (OVER = larger "
                 "than the target). Fewer timed runs and no warm-up: each run is two full encodes.",
            heavy=True))
    return workloads


def heic_gainmap(work, binary, quick):
    """HEIC with an HDR gain map → Ultra HDR JPEG, against the same conversion with `--hdr sdr`
    (the issue's cost bound: at most 1.15x its time, at most +15% size) and heif-convert, which
    drops the map (it cannot open iOS 18 files such as IMG_3853.HEIC: that row has no peer)."""
    workloads = []
    for name, photo in [("heic-gainmap-apple", "photos/pug.heic"), ("heic-gainmap-ios18", "photos/IMG_3853.HEIC")]:
        path = real_or_test(photo)
        o, reset = out_dir(work, f"{name}-out")
        keep, sdr = os.path.join(o, "keep"), os.path.join(o, "sdr")
        stem = os.path.splitext(os.path.basename(path))[0]

        def both_reset(reset=reset, keep=keep, sdr=sdr):
            reset()
            os.makedirs(keep)
            os.makedirs(sdr)

        contenders = [
            Contender("offconvert heic-to-jpg (gain map kept)", f"{binary} heic-to-jpg {path} --output-dir {keep} --quality 85 --quiet",
                      ours=True, reset=both_reset, measure=size_of(os.path.join(keep, stem + ".jpg"))),
            Contender("offconvert heic-to-jpg --hdr sdr", f"{binary} heic-to-jpg {path} --output-dir {sdr} --quality 85 --hdr sdr --quiet",
                      reset=both_reset, measure=size_of(os.path.join(sdr, stem + ".jpg"))),
        ]
        if name.endswith("apple"):
            contenders.append(Contender("heif-convert -q 85 (drops the map)", f"heif-convert -q 85 {path} {o}/hc.jpg >/dev/null",
                                        reset=both_reset, measure=size_of(os.path.join(o, "hc.jpg"))))
        workloads.append(Workload(name, f"HEIC with an HDR gain map → Ultra HDR JPEG ({os.path.basename(path)}), quality 85", contenders))
    return workloads


# (names, builder): the order here is the order of RESULTS.md.
CATALOGUE = [
    (["heic", "heic-floor"], heic),
    ([kind[0] for kind in CAMERA_KINDS] + ["heic-samsung", "heic-xiaomi", "heic-canon"], heic_kinds),
    (["heic-mixed"], heic_mixed_batch),
    (["heic-gainmap-apple", "heic-gainmap-ios18"], heic_gainmap),
    (["photo-size", "photo-size-webp"], photo_size),
    (["h264"], h264),
    (["tonemap"], tonemap),
    (["tonemap-pq"], tonemap_pq),
    (["tonemap-stage-pq", "tonemap-stage-hlg"], tonemap_stage),
    (["remux"], remux),
    (["remux-large"], remux_large),
    (["gif"], gif),
    (["bigbatch"], big_photo_batch),
    (["video-size-25", "video-size-8"], video_size),
]


def names():
    return [name for group, _ in CATALOGUE for name in group]


# The workload names asked for (empty: all), for builders whose inputs are costly to prepare.
CHOSEN = []


def build(work, binary, quick, only):
    """The workloads named in `only` (all when empty), their inputs prepared."""
    CHOSEN[:] = only
    chosen = []
    for group, builder in CATALOGUE:
        if only and not any(name in only for name in group):
            continue
        chosen += [w for w in builder(work, binary, quick) if not only or w.name in only]
    return chosen
