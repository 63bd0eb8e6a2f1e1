// swift-tools-version:6.0
import PackageDescription

/// Debian 12 packages behind each C module; `Scripts/install-deps` installs the same list.
let ffmpegDebs = [
    "libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev",
]

let package = Package(
    name: "offconvert",
    products: [
        // The photo engine: photos, allowance, batches, outputs. Links no FFmpeg: its resampler
        // opens libswscale (with libavutil) on first use through CSwscale, and libavformat or
        // libavcodec are never loaded. Examples/ proves it (Scripts/test reads the NEEDED entries
        // of PhotoOnlyExample).
        .library(name: "ConvertCore", targets: ["ConvertCore"]),
        // Many photos as one job: a queue admitted by memory, one combined progress, per-photo
        // outcomes, and resume from a journal the app places (PhotoBatch). The CLI's batches
        // run on the same scheduler and journal. Photo-only: no FFmpeg.
        .library(name: "ConvertBatch", targets: ["ConvertBatch"]),
        // The CLI's free tier (three conversions a day) and licences: a store an app may keep
        // for a limit of its own. Library conversions are never charged unless the caller
        // places outputs through its gate.
        .library(name: "ConvertAllowance", targets: ["ConvertAllowance"]),
        // The whole engine: video and audio through FFmpeg, plus ConvertCore, which it re-exports
        // (`import ConvertMedia` alone sees both).
        .library(name: "ConvertMedia", targets: ["ConvertMedia"]),
        // `offconvert` (a few lines of C) becomes `offconvert-photo` or `offconvert-media` for
        // each command (exec, same process), so a photo never pays for loading FFmpeg and a video
        // command does not start two Swift programs.
        .executable(name: "offconvert", targets: ["offconvert"]),
        .executable(name: "offconvert-photo", targets: ["offconvert-photo"]),
        .executable(name: "offconvert-media", targets: ["offconvert-media"]),
    ],
    targets: [
        // One system-library target per C library. Headers that need a helper Swift cannot import
        // (function-like macros) carry it as a `static inline` function in the module's shim header.
        // FFmpeg's libraries, all but libavfilter linked: its functions are looked up when the
        // first filter graph is built (see offc_avfilter_open in shim.h), so a stream copy does
        // not load the ~40 libraries behind it.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(ffmpegDebs)]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // The HEVC decoder libheif itself decodes with; used directly to decode a HEIC's tiles
        // to YCbCr planes for the JPEG encoder (see HeifYCbCrDecoder).
        .systemLibrary(name: "CDe265", pkgConfig: "libde265", providers: [.apt(["libde265-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // libjxl 0.7 (Debian 12) with its thread pool, libjxl_threads: JPEG XL in and out,
        // including lossless JPEG recompression. Not linked: CJXL.h opens the libraries on first
        // use (libjxl-dev gives the headers), so photo commands without JPEG XL do not pay for
        // loading them.
        .target(name: "CJXL"),
        // libtiff 4.5 (Debian 12): TIFF and BigTIFF photos in, read only.
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CLCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // OpenJPEG 2.5 (Debian 12): JPEG 2000 photos in (JP2, JPX, a bare J2K codestream), read only.
        .systemLibrary(name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libswscale alone (with libavutil): the photo resampler, without the rest of FFmpeg. Not
        // linked: CSwscale.h opens it on first use (libswscale-dev gives the headers), as for CJXL.
        .target(name: "CSwscale"),
        // libpng reports errors by longjmp; Swift cannot call setjmp, so the whole encode/decode
        // call that may longjmp lives in this small C target.
        .target(name: "CPNGShim", dependencies: ["CPNG"]),
        // libtiff's error handlers take a va_list, which Swift cannot implement; the handlers,
        // the in-memory client I/O and the bounded strip/tile copies live in this small C target.
        .target(name: "CTIFFShim", dependencies: ["CTIFF"]),
        // libjpeg-turbo's libjpeg API (libjpeg62-turbo-dev), for a JPEG fed band by band: TurboJPEG
        // 2.1 only encodes whole pictures. libjpeg errors longjmp too, so the calls live in C.
        .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),
        // Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module lacks
        // (inserting a range into a file): see CLinux.h.
        .target(name: "CLinux"),
        .target(
            name: "ConvertCore",
            dependencies: [
                "CHeif", "CDe265", "CSwscale", "CTurboJPEG", "CJPEGShim", "CPNGShim", "CTIFFShim", "CWebP", "CJXL",
                "CLCMS", "CCrypto", "CLinux", "COpenJPEG",
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The video requests as plain values (VideoRequest, GIFRequest, AudioExtractionRequest and
        // their choices), without FFmpeg: the CLI's catalogue parses options into them in the
        // photo binary too; ConvertMedia, which runs them, re-exports them.
        .target(
            name: "MediaRequests",
            dependencies: ["ConvertCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "ConvertAllowance",
            dependencies: ["ConvertCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "ConvertBatch",
            dependencies: ["ConvertCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The tone-map table's per-pixel walk for HDR video: eight pixels at a time with AVX2
        // gathers, which Swift's SIMD types cannot express (see CToneMap.h).
        .target(name: "CToneMap"),
        // The FFmpeg layer: owners of FFmpeg's objects (demuxer, decoders, filter graphs, encoders,
        // muxer) and Swift values copied out of them. The only target that depends on CFFmpeg,
        // imported `internal` so no C type enters its API, which is `package`, never `public`.
        // SwiftPM would still let a target above it `import CFFmpeg` (the module maps of
        // dependencies' dependencies are visible): FFmpegLayerTests refuses that.
        .target(
            name: "FFmpegLayer",
            dependencies: ["ConvertCore", "MediaRequests", "CFFmpeg"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "ConvertMedia",
            dependencies: ["ConvertCore", "MediaRequests", "FFmpegLayer", "CToneMap"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The command line shared by both executables: parsing, terminal, batches, and the
        // photo commands. Links no FFmpeg.
        .target(
            name: "OffconvertCLI",
            dependencies: ["ConvertCore", "ConvertBatch", "ConvertAllowance", "MediaRequests"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The launcher, in C: it starts in about 2 ms and loads no codec.
        .executableTarget(name: "offconvert"),
        .executableTarget(
            name: "offconvert-photo",
            dependencies: ["OffconvertCLI"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "offconvert-media",
            dependencies: ["OffconvertCLI", "ConvertMedia", "MediaRequests", "ConvertAllowance"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Benchmarks only: decodes photos exactly as heic-to-jpg does, without encoding or
        // writing, so Benchmarks/ can measure how close a batch comes to the decode-only floor.
        .executableTarget(
            name: "heic-decode-floor",
            dependencies: ["ConvertCore", "ConvertBatch"],
            path: "Benchmarks/DecodeFloor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Benchmarks only: decodes an HDR clip and tone maps every frame (table or zscale chain)
        // without encoding, so Benchmarks/ can time the tone-map stage alone.
        .executableTarget(
            name: "tonemap-floor",
            dependencies: ["ConvertMedia"],
            path: "Benchmarks/ToneMapFloor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Fuzzing only: the decode and encode pipelines on arbitrary bytes through the public
        // API (Fuzz/pipelines builds it with libFuzzer and AddressSanitizer; replays anywhere).
        .executableTarget(
            name: "pipeline-fuzz",
            dependencies: ["ConvertCore", "ConvertMedia"],
            path: "Fuzz/Pipelines",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "ConvertCoreTests",
            dependencies: ["ConvertCore", "ConvertBatch", "ConvertAllowance", "ConvertMedia", "FFmpegLayer"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "offconvertTests",
            dependencies: [
                "OffconvertCLI", "ConvertBatch", "ConvertAllowance", "offconvert", "offconvert-photo",
                "offconvert-media",
            ],
            // Read from the source tree by HelpTextTests, not bundled.
            exclude: ["HelpTexts"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
