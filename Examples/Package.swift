// swift-tools-version:6.0
import PackageDescription

/// Programs that use offconvert as a package that depends on it would: through its products only,
/// so `package` declarations stay out of reach and anything they use is public API.
/// `Scripts/test` builds them.
let package = Package(
    name: "offconvert-examples",
    dependencies: [
        // Named: a path dependency's identity is otherwise its folder's name, which differs
        // between checkouts (and worktrees).
        .package(name: "offconvert", path: "..")
    ],
    targets: [
        // The README's "Using ConvertCore from Swift" example, word for word (ReadmeExampleTests
        // compares the two).
        // It imports ConvertMedia (a photo and a video), so it takes the ConvertMedia product.
        .executableTarget(
            name: "ReadmeExample",
            dependencies: [.product(name: "ConvertMedia", package: "offconvert")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A photo conversion through the ConvertCore product alone: `Scripts/test` checks that
        // its binary links no libavformat or libavcodec, which proves the product split.
        .executableTarget(
            name: "PhotoOnlyExample",
            dependencies: [.product(name: "ConvertCore", package: "offconvert")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // An app's tasks keep running while it converts: tickers on the global executor and
        // the main actor around conversions on limits of its own (Benchmarks' host-responsiveness
        // row and the thread-count check of `Scripts/test`).
        .executableTarget(
            name: "HostTicker",
            dependencies: [.product(name: "ConvertMedia", package: "offconvert")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A folder of photos through the public batch API: a memory budget, one progress,
        // each photo's outcome, resumable after a kill (`Scripts/test` kills it with SIGKILL
        // mid-way and checks the second run converts every photo exactly once). Photo-only.
        .executableTarget(
            name: "BatchExample",
            dependencies: [
                .product(name: "ConvertBatch", package: "offconvert"),
                .product(name: "ConvertCore", package: "offconvert"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
