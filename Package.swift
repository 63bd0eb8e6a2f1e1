// swift-tools-version:6.0
import PackageDescription

/// Debian 12 packages behind each C module; `Scripts/install-deps` installs the same list.
let ffmpegDebs = ["libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"]

let package = Package(
    name: "offconvert",
    products: [
        .library(name: "ConvertCore", targets: ["ConvertCore"]),
        .executable(name: "offconvert", targets: ["offconvert"]),
    ],
    targets: [
        // One system-library target per C library. Headers that need a helper Swift cannot import
        // (function-like macros) carry it as a `static inline` function in the module's shim header.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavfilter", providers: [.apt(ffmpegDebs)]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // The HEVC decoder libheif itself decodes with; used directly to decode a HEIC's tiles
        // to YCbCr planes for the JPEG encoder (see HeifYCbCrDecoder).
        .systemLibrary(name: "CDe265", pkgConfig: "libde265", providers: [.apt(["libde265-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CLCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libpng reports errors by longjmp; Swift cannot call setjmp, so the whole encode/decode
        // call that may longjmp lives in this small C target.
        .target(name: "CPNGShim", dependencies: ["CPNG"]),
        .target(
            name: "ConvertCore",
            dependencies: ["CFFmpeg", "CHeif", "CDe265", "CTurboJPEG", "CPNGShim", "CWebP", "CLCMS", "CCrypto"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "offconvert",
            dependencies: ["ConvertCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Benchmarks only: decodes photos exactly as heic-to-jpg does, without encoding or
        // writing, so Benchmarks/ can measure how close a batch comes to the decode-only floor.
        .executableTarget(
            name: "heic-decode-floor",
            dependencies: ["ConvertCore"],
            path: "Benchmarks/DecodeFloor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "ConvertCoreTests",
            dependencies: ["ConvertCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "offconvertTests",
            dependencies: ["offconvert"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
