"""`Benchmarks/run --footage DIR`: the benchmarks on the user's own files.

Every video and photo under DIR (recursively; recognised by their first bytes, else by extension;
hidden files and sidecars left out) goes through the situations people use offconvert for, each
against the tools doing the same job:

- a video: `send-to-windows` against ffmpeg doing what ours did (a copy where ours copied, else
  x264 `faster` CRF 23 with the same tone map, size and sound); `compress --target 25MB` against
  ffmpeg doing the same work (a copy where ours copied because the clip already fits, the same
  CRF-23 encode where ours found that the normal quality fits, else two passes by the usual formula)
  and HandBrakeCLI's "Email 25 MB 3 Minutes 720p30" preset with the formula's bitrate (RF 23 where
  ours encoded at CRF 23; n/a where ours copied: HandBrake has no copy mode); `email` against that
  HandBrake preset as it is (made for 3 minutes of video: its over-target count is the point);
- a HEIF photo: `heic-to-jpg --quality 85` against heif-convert -q 85 and vips (Q=85, 4:2:0);
- every photo: `compress-photos --target-size 500KB` against ImageMagick's jpeg:extent.

What ours did is read from one untimed run of the same command with --json (its notes, and the
x264 mode, size and sound of the file it wrote); the peers are then built to do that work: the same
tone map for an HDR source (ffmpeg: offconvert's zscale + hable chain; HandBrake: its colorspace
filter with hable, which it otherwise leaves out, writing PQ or HLG into 8 bits), every frame at its
own time (`-fps_mode passthrough`: a phone clip's variable frame rate otherwise made the two passes
see different frames and x264 stop with "Incomplete MB-tree stats file"), the display matrix kept
as a tag (`-noautorotate`), the sound copied or re-encoded as ours did. Each row says in its "work"
column what that side did.

The report (Markdown, and the same data as JSON beside it) has a row per file, situation and
contender, and totals per situation and contender: time, CPU, peak RSS (the process tree's),
output size, SSIM and PSNR against the source (ffmpeg's filters, Benchmarks/quality.py), how many
outputs went over the target, x264's mode, what each side did, and which files a contender could
not convert. A peer that is not installed is reported as missing, not run.
"""
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

import harness
import quality
from harness import fresh_dir

VIDEO_EXT = {".mov", ".mp4", ".m4v", ".mkv", ".webm", ".avi", ".ts", ".mts", ".m2ts", ".3gp", ".mpg", ".mpeg", ".wmv"}
PHOTO_EXT = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".hif", ".avif", ".webp", ".tif", ".tiff", ".bmp", ".jxl"}
HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"}
VIDEO_BRANDS = {b"qt  ", b"isom", b"iso2", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42", b"M4V ", b"avc1", b"3gp4", b"3gp5",
                b"3gp6", b"3g2a", b"dash", b"MSNV", b"XAVC", b"mmp4"}
HANDBRAKE_EMAIL = "Email 25 MB 3 Minutes 720p30"


def sniff(path):
    """("video" | "photo" | None, is a HEIF) from the file's first bytes, else its extension."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return None, False
    ext = os.path.splitext(path)[1].lower()
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        compatible = {head[i:i + 4] for i in range(16, min(len(head), 64), 4)}
        if brand in HEIF_BRANDS or (brand not in VIDEO_BRANDS and compatible & HEIF_BRANDS and ext not in VIDEO_EXT):
            return "photo", True
        return "video", False
    if head.startswith(b"\xff\xd8\xff") or head.startswith(b"\x89PNG") or head.startswith(b"BM") \
            or head[:4] in (b"II*\x00", b"MM\x00*") or (head[:4] == b"RIFF" and head[8:12] == b"WEBP") \
            or head.startswith(b"\xff\x0a") or head.startswith(b"\x00\x00\x00\x0cJXL "):
        return "photo", False
    if head.startswith(b"\x1a\x45\xdf\xa3") or (head[:4] == b"RIFF" and head[8:12] == b"AVI ") \
            or (len(head) > 0 and head[0] == 0x47 and ext in VIDEO_EXT) or head.startswith(b"\x00\x00\x01\xba"):
        return "video", False
    if ext in VIDEO_EXT:
        return "video", False
    if ext in PHOTO_EXT:
        return "photo", ext in {".heic", ".heif", ".hif", ".avif"}
    return None, False


SIDECARS = {".aae", ".xmp", ".thm", ".lrv", ".json", ".txt", ".md"}


def collect(root):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or os.path.splitext(name)[1].lower() in SIDECARS:
                continue
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            kind, heif = sniff(path)
            if kind:
                found.append((path, kind, heif))
    return found


def parse_size(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*(B|KB|MB|GB|KiB|MiB|GiB)\s*", text)
    if not m:
        raise SystemExit(f"footage: a size needs a unit, as 25MB or 500KB: {text!r}")
    unit = {"B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}[m.group(2)]
    return int(float(m.group(1)) * unit)


def probe(path):
    if not shutil.which("ffprobe"):
        return {}
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                          "stream=codec_type,codec_name,width,height,pix_fmt,color_transfer:format=duration", "-of", "json", path],
                         capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {}


class Entry:
    """One contender in one situation: a command, or why there is none ("missing" tool, "cannot")."""

    def __init__(self, label, cmd=None, ours=False, status="ok", reason="", outputs=None, quality=None, target=None,
                 source=None, work="", warmed=False):
        self.label, self.cmd, self.ours, self.status, self.reason = label, cmd, ours, status, reason
        self.outputs, self.quality, self.target, self.source = outputs, quality, target, source
        # What this side does with the file (copy, re-encode, tone map, sound), said in its row;
        # `warmed`: an untimed run of the same command already read the file (no warm-up needed).
        self.work, self.warmed = work, warmed
        self.times, self.cpu, self.rss, self.assessed, self.error = [], [], [], {}, ""

    def contender(self):
        c = harness.Contender(self.label, self.cmd, ours=self.ours, outputs=self.outputs, quality=self.quality,
                              target=self.target, source=self.source)
        return c


def missing(label, tool):
    return Entry(label, status="missing", reason=f"{tool} is not installed")


# The tone map of offconvert's send-to-windows and compress, for the ffmpeg peers (the same
# zscale + tonemap=hable chain, workloads.tonemap_filter) with the tags of the SDR result, and
# HandBrake's own colorspace filter with the same operator (hable, no desaturation): without it
# HandBrake 1.6 writes the HDR signal into 8-bit H.264 as it is, still tagged PQ or HLG.
TONEMAP_TAGS = "-color_primaries bt709 -color_trc bt709 -colorspace bt709 -color_range tv"
HANDBRAKE_TONEMAP = "--colorspace 'primaries=bt709:transfer=bt709:matrix=bt709:tonemap=hable:desat=0'"


class Done:
    """What offconvert did with a clip in one situation, read from an untimed run of the same command
    with --json (its notes) and from the file it wrote: the peers are then given that same work (a
    copy against a copy, the same tone map, the same size, the same sound), and every row says what
    its side did."""

    def __init__(self, error="", notes=(), video=None, audio=None, tone_mapped=False, size=None):
        self.error, self.notes, self.video, self.audio = error, list(notes), video, audio
        self.tone_mapped, self.size = tone_mapped, size

    @property
    def copied(self):
        return self.video == "copied"

    def describe(self):
        if self.error:
            return f"failed: {self.error}"
        video = "video copied" if self.copied else f"video re-encoded: x264 {self.video}"
        if self.tone_mapped:
            video += ", tone mapped to SDR"
        return f"{video}; {audio_words(self.audio)}"


def audio_words(audio):
    return {None: "no sound", "copied": "sound copied"}.get(audio) or f"sound re-encoded: {audio}"


def what_ours_did(command, path, source_size, folder):
    """Runs `command` (ours, without --quiet) once on `path` with --json into `folder`, untimed: the
    plan the peers of its situation follow."""
    fresh_dir(folder)
    proc = subprocess.run(f"{command} --output-dir {shlex.quote(folder)} --json", shell=True, capture_output=True,
                          text=True, env=harness.fresh_state())
    events = []
    for line in proc.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    finished = next((e for e in events if e.get("event") == "finished"), None)
    outputs = sorted(os.path.join(folder, name) for name in os.listdir(folder))
    if finished is None or not outputs:
        failed = next((e for e in events if e.get("event") == "failed"), {})
        return Done(error=failed.get("message") or failure(f"exit {proc.returncode}\n{proc.stderr}"))
    notes = finished.get("notes", [])
    text = " ".join(notes)
    output = outputs[0]
    video = quality.encode_mode(output, path)
    if "video copied" in text or "video and audio copied" in text:
        video = "copied"
    sound = re.search(r"audio re-encoded to AAC at (\d+) kb/s", text)
    if "audio copied" in text or "video and audio copied" in text:
        audio = "copied"
    elif sound:
        audio = f"AAC {sound.group(1)} kb/s"
    else:
        audio = None if not has_audio(output) else "copied"
    size = quality.dimensions(output)
    return Done(notes=notes, video=video, audio=audio, tone_mapped="tone mapped" in text,
                size=size if size != source_size else None)


def has_audio(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0",
                          path], capture_output=True, text=True)
    return bool(out.stdout.strip())


def ffmpeg_sound(done):
    """The ffmpeg options that treat the sound as offconvert did."""
    if done.audio is None:
        return "-an"
    if done.audio == "copied":
        return "-c:a copy"
    kbps = re.search(r"(\d+)", done.audio)
    return f"-c:a aac -b:a {kbps.group(1) if kbps else 128}k"


def ffmpeg_picture(done, tonemap):
    """offconvert's picture work for an ffmpeg re-encode: (input options, output options, words for
    the row). The same tone map, the same size, the display matrix kept as a tag (-noautorotate:
    ffmpeg would otherwise turn the pixels, work offconvert does not do), every frame at its own
    time (-fps_mode passthrough, as the main workloads: without it a variable frame rate is made
    constant, and the two passes of a phone clip disagree: "Incomplete MB-tree stats file")."""
    filters, words = [], []
    if done.tone_mapped and tonemap:
        filters.append(tonemap)
        words.append("tone mapped (the same zscale + hable chain)")
    if done.size:
        filters.append(f"scale={done.size[0]}:{done.size[1]}")
        words.append(f"scaled to {done.size[0]}x{done.size[1]} as offconvert did")
    output = (f"-vf {shlex.quote(','.join(filters))} " if filters else "") + "-fps_mode passthrough -pix_fmt yuv420p"
    if done.tone_mapped and tonemap:
        output += " " + TONEMAP_TAGS
    return "-noautorotate", output, "".join(", " + w for w in words)


def handbrake_picture(done, hdr):
    """HandBrake's options for offconvert's tone map, and the words for the row."""
    if done.tone_mapped:
        return f" {HANDBRAKE_TONEMAP}", ", tone mapped (HandBrake's colorspace filter, hable)"
    return "", ", not tone mapped (HandBrake keeps the HDR signal)" if hdr else ""


def handbrake_sound(done):
    """HandBrake's options for the sound as offconvert treated it (its AAC passed through when ours
    copied it), and the words for the row."""
    if done.audio is None:
        return "-a none", "no sound"
    if done.audio == "copied":
        return "-E copy:aac --audio-fallback av_aac -B 128", "sound copied (AAC passthrough)"
    kbps = re.search(r"(\d+)", done.audio)
    return f"-E av_aac -B {kbps.group(1) if kbps else 128}", f"sound re-encoded: {done.audio}"


def video_situations(path, out, binary, video_target):
    q_path, q_bin = shlex.quote(path), shlex.quote(binary)
    info = probe(path)
    streams = info.get("streams", [])
    v = next((s for s in streams if s.get("codec_type") == "video"), {})
    a = next((s for s in streams if s.get("codec_type") == "audio"), None)
    try:
        seconds = float(info.get("format", {}).get("duration", 0))
    except ValueError:
        seconds = 0.0
    transfer = v.get("color_transfer", "")
    hdr = transfer in ("smpte2084", "arib-std-b67")
    w, h = int(v.get("width") or 0), int(v.get("height") or 0)
    tonemap = None
    if hdr:
        import workloads
        tonemap = workloads.tonemap_filter(transfer)
    q = (lambda outputs: [quality.video_quality(o, path, tonemap) for o in outputs])
    situations = []
    ffmpeg = shutil.which("ffmpeg")
    handbrake = shutil.which("HandBrakeCLI")

    # send-to-windows: ffmpeg doing what ours did, with the same settings (x264 faster CRF 23).
    o = os.path.join(out, "stw")
    done = what_ours_did(f"{q_bin} send-to-windows {q_path}", path, (w, h), f"{o}/plan")
    ours = Entry("offconvert send-to-windows", f"{q_bin} send-to-windows {q_path} --output-dir {o}/ours --quiet", ours=True,
                 outputs=f"{o}/ours/*", quality=q, source=path, work=done.describe(), warmed=not done.error)
    label = "ffmpeg, the same work (a copy, or x264 faster CRF 23)"
    if not ffmpeg:
        peer = missing(label, "ffmpeg")
    elif done.copied:
        peer = Entry(label,
                     f"ffmpeg -v error -y -i {q_path} -map 0:v:0 -map 0:a:0? -c:v copy {ffmpeg_sound(done)} "
                     f"-movflags +faststart {o}/ff/out.mp4",
                     outputs=f"{o}/ff/*", quality=q, source=path, work=f"video copied; {audio_words(done.audio)}")
    else:
        pre, post, words = ffmpeg_picture(done, tonemap)
        peer = Entry(label,
                     f"mkdir -p {o}/ff && ffmpeg -v error -y {pre} -i {q_path} -map 0:v:0 -map 0:a:0? {post} "
                     f"-c:v libx264 -preset faster -crf 23 {ffmpeg_sound(done)} -movflags +faststart {o}/ff/out.mp4",
                     outputs=f"{o}/ff/*", quality=q, source=path,
                     work=f"video re-encoded: x264 faster CRF 23{words}; {audio_words(done.audio)}")
    situations.append(("send-to-windows", [ours, peer]))

    # compress --target: ours copies, encodes at the normal quality (CRF 23) when that fits, or makes
    # two passes; ffmpeg does the same (a copy, the same CRF-23 encode, or two passes by the usual
    # formula), HandBrake its Email preset with the formula's bitrate (or RF 23), never a copy.
    o = os.path.join(out, "compress")
    target_text = f"{video_target}B"
    target_words = harness_size(video_target)
    done = what_ours_did(f"{q_bin} compress {q_path} --target {target_text}", path, (w, h), f"{o}/plan")
    ours = Entry(f"offconvert compress --target {target_words}",
                 f"{q_bin} compress {q_path} --target {target_text} --output-dir {o}/ours --quiet", ours=True,
                 outputs=f"{o}/ours/*", quality=q, target=video_target, source=path, work=done.describe(),
                 warmed=not done.error)
    kbps = int(video_target * 8 / seconds / 1000) - (128 if a is not None else 0) if seconds > 0 else 0
    entries = [ours]
    sized = dict(outputs=f"{o}/ff/*", quality=q, target=video_target, source=path)
    pre, post, tone_words = ffmpeg_picture(done, tonemap)
    label = "ffmpeg, the same work (a copy, x264 medium CRF 23, or the 2-pass formula)"
    if not ffmpeg:
        entries.append(missing(label, "ffmpeg"))
    elif done.copied:
        entries.append(Entry(label,
                             f"ffmpeg -v error -y -i {q_path} -map 0:v:0 -map 0:a:0? -c:v copy {ffmpeg_sound(done)} "
                             f"-movflags +faststart {o}/ff/out.mp4",
                             work=f"video copied; {audio_words(done.audio)}", **sized))
    elif (done.video or "").startswith("CRF"):
        entries.append(Entry(label,
                             f"mkdir -p {o}/ff && ffmpeg -v error -y {pre} -i {q_path} -map 0:v:0 -map 0:a:0? {post} -c:v libx264 "
                             f"-preset medium -crf {done.video.split()[1]} {ffmpeg_sound(done)} "
                             f"-movflags +faststart {o}/ff/out.mp4",
                             work=f"video re-encoded: x264 medium {done.video}{tone_words}; {audio_words(done.audio)}",
                             **sized))
    elif kbps < 50:
        entries.append(Entry(label, status="cannot",
                             reason=f"the formula leaves {kbps} kb/s for the video"))
    else:
        log = os.path.join(o, "ff2pass")
        entries.append(Entry(
            label,
            f"mkdir -p {o}/ff && ffmpeg -v error -y {pre} -i {q_path} -map 0:v:0 {post} -c:v libx264 -preset medium -b:v {kbps}k "
            f"-passlogfile {log} -pass 1 -an -f null - && ffmpeg -v error -y {pre} -i {q_path} -map 0:v:0 "
            f"-map 0:a:0? {post} -c:v libx264 -preset medium -b:v {kbps}k -passlogfile {log} -pass 2 {ffmpeg_sound(done)} "
            f"-movflags +faststart {o}/ff/out.mp4",
            work=f"video re-encoded: x264 medium 2-pass at the formula's {kbps} kb/s{tone_words}; "
                 f"{audio_words(done.audio)}", **sized))
    hb_label = f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\", the formula bitrate or RF 23"
    hb_tone, hb_words = handbrake_picture(done, hdr)
    hb_sound, hb_sound_words = handbrake_sound(done)
    if not handbrake:
        entries.append(missing(hb_label, "HandBrakeCLI"))
    elif done.copied:
        entries.append(Entry(hb_label, status="n/a",
                             reason="offconvert copied the video (it already fits); HandBrake has no copy mode"))
    elif (done.video or "").startswith("CRF"):
        rf = done.video.split()[1]
        entries.append(Entry(
            hb_label,
            f"HandBrakeCLI -i {q_path} -o {o}/hb/out.mp4 --preset '{HANDBRAKE_EMAIL}' -q {rf}{hb_tone} {hb_sound} 2>/dev/null",
            outputs=f"{o}/hb/*", quality=q, target=video_target, source=path,
            work=f"video re-encoded: x264 RF {rf} with the preset's 720p30 cap{hb_words}; {hb_sound_words}"))
    elif kbps >= 50:
        entries.append(Entry(
            hb_label,
            f"HandBrakeCLI -i {q_path} -o {o}/hb/out.mp4 --preset '{HANDBRAKE_EMAIL}' -b {kbps} "
            f"-x 'vbv-maxrate={kbps}:vbv-bufsize={kbps * 10}'{hb_tone} {hb_sound} 2>/dev/null",
            outputs=f"{o}/hb/*", quality=q, target=video_target, source=path,
            work=f"video re-encoded: x264 2-pass at the formula's {kbps} kb/s with the preset's 720p30 cap{hb_words}; "
                 f"{hb_sound_words}"))
    situations.append((f"compress --target {target_words}", entries))

    # email: the preset HandBrake offers for it, as it is (with the same tone map for HDR).
    o = os.path.join(out, "email")
    email_target = 25_000_000
    done = what_ours_did(f"{q_bin} email {q_path}", path, (w, h), f"{o}/plan")
    entries = [Entry("offconvert email", f"{q_bin} email {q_path} --output-dir {o}/ours --quiet", ours=True,
                     outputs=f"{o}/ours/*", quality=q, target=email_target, source=path, work=done.describe(),
                     warmed=not done.error)]
    hb_label = f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\" as it is"
    hb_tone, hb_words = handbrake_picture(done, hdr)
    if not handbrake:
        entries.append(missing(hb_label, "HandBrakeCLI"))
    elif done.copied:
        entries.append(Entry(hb_label, status="n/a",
                             reason="offconvert copied the video (it already fits); HandBrake has no copy mode"))
    else:
        entries.append(Entry(hb_label,
                             f"HandBrakeCLI -i {q_path} -o {o}/hb/out.mp4 --preset '{HANDBRAKE_EMAIL}'{hb_tone} 2>/dev/null",
                             outputs=f"{o}/hb/*", quality=q, target=email_target, source=path,
                             work=f"video re-encoded: the preset as it is (720p30 cap){hb_words}; sound as the preset says"))
    situations.append(("email", entries))
    return situations


def harness_size(n):
    for unit, size in (("GB", 10 ** 9), ("MB", 10 ** 6), ("KB", 10 ** 3)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


def photo_situations(path, heif, out, binary, photo_target, work):
    q_path, q_bin = shlex.quote(path), shlex.quote(binary)
    ref = lambda outputs: [quality.photo_quality(o, quality.photo_reference(path, work)) for o in outputs]
    situations = []
    stem = os.path.splitext(os.path.basename(path))[0]
    if heif:
        o = os.path.join(out, "heic")
        entries = [Entry("offconvert heic-to-jpg --quality 85",
                         f"{q_bin} heic-to-jpg {q_path} --quality 85 --output-dir {o}/ours --quiet", ours=True,
                         outputs=f"{o}/ours/*", quality=ref)]
        entries.append(Entry("heif-convert -q 85", f"mkdir -p {o}/hc && heif-convert -q 85 {q_path} {o}/hc/out.jpg >/dev/null",
                             outputs=f"{o}/hc/*.jpg", quality=ref) if shutil.which("heif-convert")
                       else missing("heif-convert -q 85", "heif-convert"))
        entries.append(Entry("vips copy Q=85 4:2:0", f"mkdir -p {o}/vips && vips copy {q_path} '{o}/vips/out.jpg[Q=85,subsample-mode=on]'",
                             outputs=f"{o}/vips/*", quality=ref) if shutil.which("vips")
                       else missing("vips copy Q=85 4:2:0", "vips"))
        situations.append(("heic-to-jpg", entries))
    o = os.path.join(out, "small")
    entries = [Entry(f"offconvert compress-photos --target-size {harness_size(photo_target)}",
                     f"{q_bin} compress-photos {q_path} --target-size {photo_target}B --output-dir {o}/ours --quiet", ours=True,
                     outputs=f"{o}/ours/*", quality=ref, target=photo_target)]
    entries.append(Entry(f"ImageMagick jpeg:extent={photo_target}",
                         f"mkdir -p {o}/im && convert-im6.q16 {q_path} -define jpeg:extent={photo_target} {o}/im/{shlex.quote(stem + '.jpg')}",
                         outputs=f"{o}/im/*", quality=ref, target=photo_target) if shutil.which("convert-im6.q16")
                   else missing(f"ImageMagick jpeg:extent={photo_target}", "ImageMagick (convert-im6.q16)"))
    situations.append((f"compress-photos --target-size {harness_size(photo_target)}", entries))
    return situations


def failure(message):
    """The line of a failed command's errors that says why: the last one naming an error, else
    the last one, else its exit status."""
    head, _, err = message.partition("\n")
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    named = [line for line in lines if re.search(r"error|invalid|fail|cannot|could not|unsupported|corrupt", line, re.I)]
    return ((named or lines or [head.split(":")[0]])[-1])[:200]


def measure_situation(entries, work, runs, quick):
    """Times every runnable entry of one situation (alternating, one warm-up unless quick); an entry
    that fails is marked as not converting the file, never stops the others."""
    live = [e for e in entries if e.status == "ok"]
    for e in live:
        e.c = e.contender()

    def reset(e):
        for pattern in [e.outputs]:
            folder = os.path.dirname(pattern)
            fresh_dir(folder)

    def attempt(e, sample):
        try:
            return harness.run_command(e.cmd, work, sample_memory=sample)
        except RuntimeError as error:
            e.status, e.error = "failed", failure(str(error))
            return None

    if not quick:
        for e in live:
            if e.warmed:
                continue
            reset(e)
            attempt(e, False)
    for i in range(runs):
        order = live if i % 2 == 0 else list(reversed(live))
        for e in order:
            if e.status != "ok":
                continue
            reset(e)
            got = attempt(e, quick)
            if got:
                e.times.append(got[0])
                e.cpu.append(got[1])
                if quick:
                    e.rss.append(got[2])
    for e in live:
        if e.status != "ok":
            continue
        if not quick:
            reset(e)
            got = attempt(e, True)
            if not got:
                continue
            e.rss.append(got[2])
        e.assessed = harness.assess(e.c)
        if not e.assessed.get("files"):
            e.status, e.error = "failed", "wrote no file"


def run(root, binary, args):
    if not os.path.isdir(root):
        print(f"footage: {root} is not a folder", file=sys.stderr)
        return 2
    files = collect(root)
    if not files:
        print(f"footage: no video or photo under {root}", file=sys.stderr)
        return 1
    runs = 1 if args.quick else (args.runs or 3)
    video_target, photo_target = parse_size(args.video_target), parse_size(args.photo_target)
    tools = {t: bool(shutil.which(t)) for t in ("ffmpeg", "ffprobe", "HandBrakeCLI", "heif-convert", "vips", "convert-im6.q16")}
    started = datetime.datetime.now(datetime.timezone.utc)
    print(f"footage: {len(files)} file(s) under {root}; {runs} timed run(s) each"
          + (", no warm-up (quick)" if args.quick else ", after one warm-up"), flush=True)
    work = tempfile.mkdtemp(prefix="offconvert-footage-")
    rows = []
    try:
        for index, (path, kind, heif) in enumerate(files):
            rel = os.path.relpath(path, root)
            out = os.path.join(work, f"{index:04d}")
            situations = (video_situations(path, out, binary, video_target) if kind == "video"
                          else photo_situations(path, heif, out, binary, photo_target, work))
            for situation, entries in situations:
                print(f"== {rel}: {situation}", flush=True)
                measure_situation(entries, work, runs, args.quick)
                for e in entries:
                    row = {"file": rel, "kind": kind, "situation": situation, "contender": e.label, "ours": e.ours,
                           "status": e.status, "reason": e.reason or e.error, "work": e.work}
                    if e.times:
                        row.update({"median": statistics.median(e.times), "cpu": statistics.median(e.cpu),
                                    "rss": max(r for r in e.rss if r is not None) if any(r is not None for r in e.rss) else None,
                                    "runs": len(e.times)})
                    row.update(e.assessed)
                    rows.append(row)
                    print(f"   {e.label:<52} " + (f"{row['median']:8.3f}s" if "median" in row else f"{e.status}: {row['reason']}"),
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = {"folder": root, "measured": f"{started:%Y-%m-%d %H:%M} UTC", "runs": runs, "quick": bool(args.quick),
              "binary": binary, "tools": tools, "files": [os.path.relpath(p, root) for p, _, _ in files], "rows": rows,
              "totals": totals(rows)}
    text = markdown(report)
    path = os.path.abspath(args.report)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.splitext(path)[0] + ".json", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(text)
    print(f"footage: report written to {path} (and {os.path.splitext(path)[0]}.json)")
    return 0


def totals(rows):
    """Per situation and contender: files converted, files not, time and CPU summed, the highest
    peak RSS, bytes summed, mean SSIM, over-target count, and the time ratio against ours over the
    files both converted."""
    groups = {}
    for r in rows:
        groups.setdefault((r["situation"], r["contender"]), []).append(r)
    ours_time = {(r["situation"], r["file"]): r["median"] for r in rows if r["ours"] and r["status"] == "ok" and "median" in r}
    out = []
    for (situation, contender), items in groups.items():
        done = [r for r in items if r["status"] == "ok" and "median" in r]
        shared = [r for r in done if (situation, r["file"]) in ours_time]
        ssims = [r["ssim"] for r in done if r.get("ssim") is not None]
        rss = [r["rss"] for r in done if r.get("rss") is not None]
        out.append({
            "situation": situation, "contender": contender, "ours": items[0]["ours"], "converted": len(done),
            "not_converted": [f"{r['file']} ({r['status']}: {r['reason']})" for r in items
                              if r["status"] not in ("ok", "missing", "n/a")],
            # A peer that cannot do what offconvert did (HandBrake has no copy mode): not a failure.
            "not_applicable": [f"{r['file']} ({r['reason']})" for r in items if r["status"] == "n/a"],
            "missing": next((r["reason"] for r in items if r["status"] == "missing"), None),
            "seconds": sum(r["median"] for r in done), "cpu": sum(r["cpu"] for r in done),
            "rss": max(rss) if rss else None, "bytes": sum(r.get("bytes", 0) for r in done),
            "ssim": statistics.mean(ssims) if ssims else None,
            "over": sum(r.get("over", 0) for r in done) if any("target" in r for r in done) else None,
            "ratio": (sum(r["median"] for r in shared) / sum(ours_time[(situation, r["file"])] for r in shared))
            if shared and not items[0]["ours"] and sum(ours_time[(situation, r["file"])] for r in shared) > 0 else None,
        })
    return out


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _size(b):
    return "—" if b is None else (f"{b / 1e6:.2f} MB" if b >= 1e6 else f"{b / 1e3:.0f} kB")


def markdown(report):
    lines = ["# offconvert on your footage", "",
             f"`Benchmarks/run --footage {report['folder']}`, {report['measured']}: {len(report['files'])} file(s), "
             f"{report['runs']} timed run(s) per command" + (" (quick: no warm-up, memory sampled during the run)" if report["quick"]
                                                             else " after one warm-up, medians shown") + ".",
             "",
             "Time and CPU (user + system of the whole process tree) in seconds; peak RSS in MiB, summed over the process "
             "tree; SSIM and PSNR (dB) against the source by ffmpeg's filters; over = outputs larger than the target; "
             "mode = x264's rate control read from the output (copied: the source's own stream). Ratio = the peer's time "
             "/ ours over the files both converted (above 1: offconvert is faster).", "",
             "Every peer is given the work offconvert did with the file, read from an untimed run of our command "
             "(its --json notes and its output): a copy against a copy (`-c:v copy`; HandBrake, which has no copy mode, "
             "is n/a then), offconvert's CRF-23 encode against the same encode where the normal quality fits the target, "
             "two passes by the usual formula where ours makes two, the same tone map for HDR (ffmpeg: the zscale + "
             "hable chain; HandBrake: its colorspace filter with hable), the same size and sound, and every frame at its "
             "own time (`-fps_mode passthrough`). The \"work\" column says what each side did.", ""]
    absent = [t for t, ok in report["tools"].items() if not ok]
    if absent:
        lines += [f"Not installed here (their rows say missing): {', '.join(absent)}.", ""]
    lines += ["## Totals", "",
              "| situation | contender | converted | could not convert | time s | ratio | CPU s | peak RSS MiB | size | mean SSIM | over target |",
              "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in report["totals"]:
        if t["missing"] and not t["converted"]:
            lines.append(f"| {t['situation']} | {t['contender']} | — | missing: {t['missing']} | — | — | — | — | — | — | — |")
            continue
        aside = t["not_converted"] + [f"n/a: {item}" for item in t.get("not_applicable", [])]
        if not t["converted"]:
            converted = "—" if not t["not_converted"] else "0"
            lines.append(f"| {t['situation']} | {t['contender']} | {converted} | {_cell('; '.join(aside))} | — | — | — | — | — | — | — |")
            continue
        ratio = "—" if t["ratio"] is None else format(t["ratio"], ".2f")
        rss = "—" if t["rss"] is None else format(t["rss"], ".0f")
        ssim = "—" if t["ssim"] is None else format(t["ssim"], ".4f")
        over = "—" if t["over"] is None else t["over"]
        lines.append(f"| {t['situation']} | {t['contender']} | {t['converted']} | {_cell('; '.join(aside)) or 'none'} | "
                     f"{t['seconds']:.3f} | {ratio} | {t['cpu']:.3f} | {rss} | {_size(t['bytes'])} | {ssim} | {over} |")
    lines += ["", "## Per file", "",
              "| file | situation | contender | work | time s | CPU s | peak RSS MiB | size | SSIM | PSNR dB | over target | mode | status |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in report["rows"]:
        work = _cell(r.get("work") or "—")
        if "median" not in r:
            lines.append(f"| {_cell(r['file'])} | {r['situation']} | {r['contender']} | {work} | — | — | — | — | — | — | — | — | "
                         f"{r['status']}: {_cell(r['reason'])} |")
            continue
        lines.append(
            f"| {_cell(r['file'])} | {r['situation']} | {r['contender']} | {work} | {r['median']:.3f} | {r['cpu']:.3f} | "
            f"{'—' if r.get('rss') is None else format(r['rss'], '.0f')} | {_size(r.get('bytes'))} | "
            f"{'—' if r.get('ssim') is None else format(r['ssim'], '.4f')} | {'—' if r.get('psnr') is None else format(r['psnr'], '.1f')} | "
            f"{'—' if 'target' not in r else r.get('over', 0)} | {r.get('mode') or '—'} | "
            f"{r['status'] if r['status'] == 'ok' else r['status'] + ': ' + _cell(r['reason'])} |")
    return "\n".join(lines) + "\n"
