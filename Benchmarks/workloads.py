"""The benchmark workloads: what offconvert does, next to what a user would run instead.

Each workload prepares its inputs under the benchmark's work folder (real media from
../shared/media when present, generated or committed TestMedia otherwise) and lists contenders:
offconvert first, then each peer with settings matched to ours as closely as the tools allow.
"""
import glob
import os
import shutil
import subprocess

from harness import Contender, Workload, media, fresh_dir, ROOT, CORES

TESTMEDIA = os.path.join(ROOT, "TestMedia")


def have(tool):
    return shutil.which(tool) is not None


def heic_batch(work, quick):
    """~50 real iPhone HEICs (the real ones repeated)."""
    src = [p for p in media("photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic",
                            "photos/empty_icc.heic", "photos/sample_still_photo.heic")]
    if not src:
        src = sorted(glob.glob(os.path.join(TESTMEDIA, "photos", "*.heic")) +
                     glob.glob(os.path.join(TESTMEDIA, "photos", "*.HEIC")))
    folder = os.path.join(work, "heic-in")
    fresh_dir(folder)
    count = 10 if quick else 50
    for i in range(count):
        shutil.copy(src[i % len(src)], os.path.join(folder, f"photo{i:03d}.heic"))
    return folder, count


def out_dir(work, name):
    path = os.path.join(work, name)
    return path, (lambda: fresh_dir(path))


def all_workloads(work, binary, quick):
    workloads = []

    # 1. HEIC → JPEG batch.
    folder, count = heic_batch(work, quick)
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
    workloads.append(Workload("heic", f"HEIC → JPEG, {count} iPhone photos, quality 90", contenders))
    workloads.append(heic_floor(work, binary, folder, count))

    # 2. Photo compression to a target size.
    photo = (media("photos/Kleiber_by_Lukas_Baubkus.jpg") or [os.path.join(TESTMEDIA, "photos", "tokyo.jpg")])[0]
    o2, reset2 = out_dir(work, "compress-out")
    target_kb = 500 if "Kleiber" in photo else 60

    def size_of(pattern):
        return lambda: "output " + ", ".join(f"{os.path.getsize(p) / 1000:.0f} kB" for p in sorted(glob.glob(pattern)))

    contenders = [Contender(f"offconvert compress-photos --target-size {target_kb}KB",
                            f"{binary} compress-photos {photo} --target-size {target_kb}KB --output-dir {o2} --quiet",
                            ours=True, reset=reset2, measure=size_of(f"{o2}/*"))]
    if have("convert-im6.q16"):
        contenders.append(Contender(f"ImageMagick -define jpeg:extent={target_kb}kb", f"convert-im6.q16 {photo} -define jpeg:extent={target_kb}kb {o2}/im.jpg", reset=reset2, measure=size_of(f"{o2}/*")))
    if have("cwebp"):
        contenders.append(Contender(f"cwebp -size {target_kb * 1000}", f"cwebp -quiet -size {target_kb * 1000} {photo} -o {o2}/c.webp", reset=reset2, measure=size_of(f"{o2}/*")))
    workloads.append(Workload("photo-size", f"Photo to ≤ {target_kb} kB ({os.path.basename(photo)})", contenders))

    # 3. Video transcode to H.264 (same CRF and preset).
    clip = (media("video/motion.mov") or [os.path.join(TESTMEDIA, "video", "motion.mov")])[0]
    o3, reset3 = out_dir(work, "transcode-out")
    workloads.append(Workload("h264", f"Transcode to H.264 CRF 23 medium + AAC ({os.path.basename(clip)})", [
        Contender("offconvert convert --to mp4 --codec h264", f"{binary} convert {clip} --to mp4 --codec h264 --crf 23 --output-dir {o3} --quiet", ours=True, reset=reset3),
        Contender("ffmpeg CLI", f"ffmpeg -v error -y -i {clip} -map 0:v:0 -map 0:a:0? -c:v libx264 -preset medium -crf 23 -c:a aac -b:a 128k -movflags +faststart {o3}/ff.mp4", reset=reset3),
    ]))

    # 4. HDR → SDR tone mapping.
    hdr = (media("video/hlg10-color-test.mp4") or [os.path.join(TESTMEDIA, "video", "hlg10-color-test.mp4")])[0]
    o4, reset4 = out_dir(work, "tonemap-out")
    vf = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    workloads.append(Workload("tonemap", f"HDR (HLG) → SDR H.264 ({os.path.basename(hdr)})", [
        Contender("offconvert send-to-windows", f"{binary} send-to-windows {hdr} --output-dir {o4} --quiet", ours=True, reset=reset4),
        Contender("ffmpeg CLI zscale+tonemap", f"ffmpeg -v error -y -i {hdr} -map 0:v:0 -map 0:a:0? -vf {vf} -c:v libx264 -preset medium -crf 23 -color_primaries bt709 -color_trc bt709 -colorspace bt709 -c:a aac -movflags +faststart {o4}/ff.mp4", reset=reset4),
    ]))

    # 5. Passthrough remux.
    remux = (media("video/ChID-BLITS-EBU.mp4") or [os.path.join(TESTMEDIA, "video", "motion.mov")])[0]
    o5, reset5 = out_dir(work, "remux-out")
    workloads.append(Workload("remux", f"Passthrough remux ({os.path.basename(remux)}, {os.path.getsize(remux) / 1e6:.1f} MB)", [
        Contender("offconvert send-to-windows (passthrough)", f"{binary} send-to-windows {remux} --output-dir {o5} --quiet", ours=True, reset=reset5),
        Contender("ffmpeg -c copy", f"ffmpeg -v error -y -i {remux} -map 0:v:0 -map 0:a:0? -c copy -movflags +faststart {o5}/ff.mp4", reset=reset5),
        Contender("cp", f"cp {remux} {o5}/copy.mp4", reset=reset5),
    ]))

    # 6. GIF export.
    gif_src = (media("video/bikes.mp4") or [os.path.join(TESTMEDIA, "video", "bikes.mp4")])[0]
    o6, reset6 = out_dir(work, "gif-out")
    workloads.append(Workload("gif", f"GIF, 12 fps, 480 px wide ({os.path.basename(gif_src)})", [
        Contender("offconvert gif", f"{binary} gif {gif_src} --fps 12 --width 480 --output-dir {o6} --quiet", ours=True, reset=reset6, measure=size_of(f"{o6}/*")),
        Contender("ffmpeg palettegen/paletteuse", f"ffmpeg -v error -y -i {gif_src} -vf \"fps=12,scale=480:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=sierra2_4a\" {o6}/ff.gif", reset=reset6, measure=size_of(f"{o6}/*")),
    ]))
    # 7. Large-photo batch: peak memory against the memory budget.
    workloads.append(big_photo_batch(work, binary, quick))

    # 8. Video to a target size (25 MB and 8 MB) from a generated 60 s 720p clip (larger than 25 MB),
    #    against ffmpeg 2-pass and HandBrakeCLI 2-pass with the usual formula
    #    (video kb/s = target × 8 / duration − audio kb/s). HandBrake has no target-size option
    #    (removed upstream because it missed too often), so the formula is what its users do.
    seconds = 20 if quick else 60
    big = os.path.join(work, "compress-src-720p.mp4")
    if not os.path.exists(big):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                        "-vf", "noise=alls=12:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "14",
                        "-c:a", "aac", "-b:a", "160k", big], check=True)
    for target_mb in (25, 8):
        target = target_mb * 1_000_000
        o7, reset7 = out_dir(work, f"video-size-{target_mb}-out")
        video_kbps = int(target * 8 / seconds / 1000) - 128
        log = os.path.join(work, f"ff2pass-{target_mb}")

        def achieved(pattern, target=target):
            def measure():
                sizes = [os.path.getsize(p) for p in sorted(glob.glob(pattern))]
                return "output " + ", ".join(f"{b / 1e6:.3f} MB ({b / target:.1%} of target{', OVER' if b > target else ''})" for b in sizes)
            return measure
        contenders = [
            Contender(f"offconvert compress --target {target_mb}MB",
                      f"XDG_STATE_HOME=$(mktemp -d) {binary} compress {big} --target {target_mb}MB --output-dir {o7}",
                      ours=True, reset=reset7, measure=achieved(f"{o7}/*.mp4")),
            Contender("ffmpeg 2-pass x264 medium, formula bitrate",
                      f"ffmpeg -v error -y -i {big} -c:v libx264 -preset medium -b:v {video_kbps}k -passlogfile {log} -pass 1 -an -f null - && "
                      f"ffmpeg -v error -y -i {big} -c:v libx264 -preset medium -b:v {video_kbps}k -passlogfile {log} -pass 2 "
                      f"-c:a aac -b:a 128k -movflags +faststart {o7}/ff.mp4",
                      reset=reset7, measure=achieved(f"{o7}/*.mp4")),
        ]
        if have("HandBrakeCLI"):
            contenders.append(Contender(
                "HandBrakeCLI 2-pass turbo, formula bitrate",
                f"HandBrakeCLI -i {big} -o {o7}/hb.mp4 -e x264 --encoder-preset medium -b {video_kbps} -2 -T -E av_aac -B 128 2>/dev/null",
                reset=reset7, measure=achieved(f"{o7}/*.mp4")))
        workloads.append(Workload(f"video-size-{target_mb}", f"Video to ≤ {target_mb} MB ({seconds} s 720p30 + AAC)", contenders,
                                  note="Result column: achieved size and share of the target (OVER = larger than the target)."))
    return workloads


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
    return Workload("bigbatch", "Big-photo batch incl. a generated 201 MP JPEG (peak memory vs a 1 GB budget)", contenders,
                    note="Peak RSS is the point here: the scheduler admits items by decoded pixels in flight, so the "
                         "201 MP photo (≈800 MB decoded) runs alone while the others wait.")


def heic_floor(work, binary, folder, count):
    """The HEIC batch against its decode-only floor: `heic-decode-floor` decodes the same photos
    with the product's own code, libheif settings and jobs/threads split, and writes nothing.
    The issue's bar is a floor ratio of at least 0.952 (the batch within 5% of the floor)."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "heic-decode-floor"], cwd=ROOT, check=True)
    floor = os.path.join(os.path.dirname(binary), "heic-decode-floor")
    o, reset = out_dir(work, "heic-floor-out")
    return Workload("heic-floor", f"HEIC → JPEG, {count} iPhone photos, against the decode-only floor", [
        Contender("offconvert heic-to-jpg (batch)", f"{binary} heic-to-jpg {folder}/*.heic --output-dir {o} --quality 90 --quiet", ours=True, reset=reset),
        Contender("decode only, same code and split (floor)", f"{floor} {folder}/*.heic"),
    ], note="The floor's ratio is floor time / batch time: 1 would mean encoding, metadata and writing cost nothing; "
            "the issue asks for at least 0.952. Both use the default jobs (one per core) and the same decoding threads.")
