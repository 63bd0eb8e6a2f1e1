"""`Benchmarks/run --footage DIR`: the benchmarks on the user's own files.

Every video and photo under DIR (recursively; recognised by their first bytes, else by extension;
hidden files and sidecars left out) goes through the situations people use offconvert for, each
against the tools doing the same job:

- a video: `send-to-windows` against ffmpeg with the same settings (the video copied where it
  already plays in Windows, else x264 `faster` CRF 23, the same tone map for HDR, scaled into
  3840x2160 when larger); `compress --target 25MB` against ffmpeg's two-pass formula and
  HandBrakeCLI's "Email 25 MB 3 Minutes 720p30" preset with the formula's bitrate; `email`
  against that HandBrake preset as it is (made for 3 minutes of video: its over-target count is
  the point);
- a HEIF photo: `heic-to-jpg --quality 85` against heif-convert -q 85 and vips (Q=85, 4:2:0);
- every photo: `compress-photos --target-size 500KB` against ImageMagick's jpeg:extent.

The report (Markdown, and the same data as JSON beside it) has a row per file, situation and
contender, and totals per situation and contender: time, CPU, peak RSS (the process tree's),
output size, SSIM and PSNR against the source (ffmpeg's filters, Benchmarks/quality.py), how many
outputs went over the target, x264's mode, and which files a contender could not convert. A
peer that is not installed is reported as missing, not run.
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
                 source=None):
        self.label, self.cmd, self.ours, self.status, self.reason = label, cmd, ours, status, reason
        self.outputs, self.quality, self.target, self.source = outputs, quality, target, source
        self.times, self.cpu, self.rss, self.assessed, self.error = [], [], [], {}, ""

    def contender(self):
        c = harness.Contender(self.label, self.cmd, ours=self.ours, outputs=self.outputs, quality=self.quality,
                              target=self.target, source=self.source)
        return c


def missing(label, tool):
    return Entry(label, status="missing", reason=f"{tool} is not installed")


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
    audio_copy = a is not None and a.get("codec_name") == "aac"
    audio = "" if a is None else ("-c:a copy" if audio_copy else "-c:a aac -b:a 128k")
    tonemap = None
    if hdr:
        import workloads
        tonemap = workloads.tonemap_filter(transfer)
    q = (lambda outputs: [quality.video_quality(o, path, tonemap) for o in outputs])
    situations = []

    # send-to-windows: ffmpeg doing the same job with the same settings.
    o = os.path.join(out, "stw")
    ours = Entry("offconvert send-to-windows", f"{q_bin} send-to-windows {q_path} --output-dir {o}/ours --quiet", ours=True,
                 outputs=f"{o}/ours/*", quality=q, source=path)
    if not shutil.which("ffmpeg"):
        peer = missing("ffmpeg, same settings", "ffmpeg")
    elif v.get("codec_name") == "h264" and v.get("pix_fmt") in ("yuv420p", "yuvj420p") and not hdr and w * h <= 3840 * 2160 \
            and (a is None or a.get("codec_name") in ("aac", "mp3")):
        peer = Entry("ffmpeg -c:v copy (plays as it is)",
                     f"ffmpeg -v error -y -i {q_path} -map 0:v:0 -map 0:a:0? -c:v copy {audio} -movflags +faststart {o}/ff/out.mp4",
                     outputs=f"{o}/ff/*", quality=q, source=path)
    else:
        filters = [tonemap] if tonemap else []
        if w * h > 3840 * 2160:
            box = "3840:2160" if w >= h else "2160:3840"
            filters.append(f"scale={box}:force_original_aspect_ratio=decrease:force_divisible_by=2")
        vf = f"-vf '{','.join(filters)}'" if filters else ""
        peer = Entry("ffmpeg x264 faster CRF 23" + (", same tone map" if hdr else ""),
                     f"ffmpeg -v error -y -i {q_path} -map 0:v:0 -map 0:a:0? {vf} -fps_mode passthrough -c:v libx264 -preset faster "
                     f"-crf 23 -pix_fmt yuv420p {audio} -movflags +faststart {o}/ff/out.mp4",
                     outputs=f"{o}/ff/*", quality=q, source=path)
    situations.append(("send-to-windows", [ours, peer]))

    # compress --target: the two-pass formula with ffmpeg and with HandBrake's preset.
    o = os.path.join(out, "compress")
    target_text = f"{video_target}B"
    ours = Entry(f"offconvert compress --target {harness_size(video_target)}",
                 f"{q_bin} compress {q_path} --target {target_text} --output-dir {o}/ours --quiet", ours=True,
                 outputs=f"{o}/ours/*", quality=q, target=video_target, source=path)
    kbps = int(video_target * 8 / seconds / 1000) - (128 if a is not None else 0) if seconds > 0 else 0
    entries = [ours]
    if not shutil.which("ffmpeg"):
        entries.append(missing("ffmpeg 2-pass formula", "ffmpeg"))
    elif kbps < 50:
        entries.append(Entry("ffmpeg 2-pass formula", status="cannot",
                             reason=f"the formula leaves {kbps} kb/s for the video"))
    else:
        log = os.path.join(o, "ff2pass")
        sound = "" if a is None else "-c:a aac -b:a 128k"
        entries.append(Entry(
            f"ffmpeg 2-pass formula, -b:v {kbps}k",
            f"mkdir -p {o}/ff && ffmpeg -v error -y -i {q_path} -map 0:v:0 -c:v libx264 -preset medium -b:v {kbps}k "
            f"-passlogfile {log} -pass 1 -an -f null - && ffmpeg -v error -y -i {q_path} -map 0:v:0 -map 0:a:0? -c:v libx264 "
            f"-preset medium -b:v {kbps}k -passlogfile {log} -pass 2 {sound} -movflags +faststart {o}/ff/out.mp4",
            outputs=f"{o}/ff/*", quality=q, target=video_target, source=path))
    if not shutil.which("HandBrakeCLI"):
        entries.append(missing(f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\", formula bitrate", "HandBrakeCLI"))
    elif kbps >= 50:
        entries.append(Entry(
            f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\", -b {kbps}",
            f"HandBrakeCLI -i {q_path} -o {o}/hb/out.mp4 --preset '{HANDBRAKE_EMAIL}' -b {kbps} "
            f"-x 'vbv-maxrate={kbps}:vbv-bufsize={kbps * 10}' -B 128 2>/dev/null",
            outputs=f"{o}/hb/*", quality=q, target=video_target, source=path))
    situations.append((f"compress --target {harness_size(video_target)}", entries))

    # email: the preset HandBrake offers for it, as it is.
    o = os.path.join(out, "email")
    email_target = 25_000_000
    entries = [Entry("offconvert email", f"{q_bin} email {q_path} --output-dir {o}/ours --quiet", ours=True,
                     outputs=f"{o}/ours/*", quality=q, target=email_target, source=path)]
    if shutil.which("HandBrakeCLI"):
        entries.append(Entry(f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\" as it is",
                             f"HandBrakeCLI -i {q_path} -o {o}/hb/out.mp4 --preset '{HANDBRAKE_EMAIL}' 2>/dev/null",
                             outputs=f"{o}/hb/*", quality=q, target=email_target, source=path))
    else:
        entries.append(missing(f"HandBrakeCLI \"{HANDBRAKE_EMAIL}\"", "HandBrakeCLI"))
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
                           "status": e.status, "reason": e.reason or e.error}
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
            "not_converted": [f"{r['file']} ({r['status']}: {r['reason']})" for r in items if r["status"] not in ("ok", "missing")],
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
             "/ ours over the files both converted (above 1: offconvert is faster).", ""]
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
        if not t["converted"]:
            lines.append(f"| {t['situation']} | {t['contender']} | 0 | {_cell('; '.join(t['not_converted']))} | — | — | — | — | — | — | — |")
            continue
        ratio = "—" if t["ratio"] is None else format(t["ratio"], ".2f")
        rss = "—" if t["rss"] is None else format(t["rss"], ".0f")
        ssim = "—" if t["ssim"] is None else format(t["ssim"], ".4f")
        over = "—" if t["over"] is None else t["over"]
        lines.append(f"| {t['situation']} | {t['contender']} | {t['converted']} | {_cell('; '.join(t['not_converted'])) or 'none'} | "
                     f"{t['seconds']:.3f} | {ratio} | {t['cpu']:.3f} | {rss} | {_size(t['bytes'])} | {ssim} | {over} |")
    lines += ["", "## Per file", "",
              "| file | situation | contender | time s | CPU s | peak RSS MiB | size | SSIM | PSNR dB | over target | mode | status |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in report["rows"]:
        if "median" not in r:
            lines.append(f"| {_cell(r['file'])} | {r['situation']} | {r['contender']} | — | — | — | — | — | — | — | — | "
                         f"{r['status']}: {_cell(r['reason'])} |")
            continue
        lines.append(
            f"| {_cell(r['file'])} | {r['situation']} | {r['contender']} | {r['median']:.3f} | {r['cpu']:.3f} | "
            f"{'—' if r.get('rss') is None else format(r['rss'], '.0f')} | {_size(r.get('bytes'))} | "
            f"{'—' if r.get('ssim') is None else format(r['ssim'], '.4f')} | {'—' if r.get('psnr') is None else format(r['psnr'], '.1f')} | "
            f"{'—' if 'target' not in r else r.get('over', 0)} | {r.get('mode') or '—'} | "
            f"{r['status'] if r['status'] == 'ok' else r['status'] + ': ' + _cell(r['reason'])} |")
    return "\n".join(lines) + "\n"
