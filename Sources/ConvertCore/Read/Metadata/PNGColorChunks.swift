/// The chunks a PNG describes its colour with, read from the chunks before its image data (PNG
/// 3rd edition, 11.3.2): cICP, iCCP, sRGB, gAMA and cHRM. A chunk whose CRC is wrong or whose
/// content is impossible is left out, as libpng discards it ("CRC error", "invalid").
struct PNGColorChunks: Equatable {
    /// The cICP chunk's code points (its matrix is 0: the pixels are RGB).
    var cicp: NCLX?
    /// Whether an iCCP chunk is present (libpng reads the profile itself).
    var hasICC = false
    /// Whether an sRGB chunk is present.
    var hasSRGB = false
    /// The gAMA chunk's value: the encoding exponent (0.45455 for 1/2.2).
    var gamma: Double?
    /// The cHRM chunk's white point and red, green, blue primaries (CIE x, y).
    var chromaticities: Chromaticities?

    /// A cHRM chunk's content.
    struct Chromaticities: Equatable {
        var white: Chromaticity
        var red: Chromaticity
        var green: Chromaticity
        var blue: Chromaticity

        /// sRGB's (and BT.709's): D65 white.
        static let sRGB = Chromaticities(
            white: Chromaticity(x: 0.3127, y: 0.3290), red: Chromaticity(x: 0.64, y: 0.33),
            green: Chromaticity(x: 0.30, y: 0.60), blue: Chromaticity(x: 0.15, y: 0.06))

        /// Whether every coordinate is within `tolerance` of `other`'s.
        func isClose(to other: Chromaticities, tolerance: Double = 0.001) -> Bool {
            let pairs = [(white, other.white), (red, other.red), (green, other.green), (blue, other.blue)]
            return pairs.allSatisfy { abs($0.0.x - $0.1.x) <= tolerance && abs($0.0.y - $0.1.y) <= tolerance }
        }
    }

    /// What describes the pixels' colour, by the precedence of PNG 3rd edition (4.3) and libpng:
    /// cICP, then iCCP, then sRGB, then gAMA and cHRM.
    enum Description: Equatable {
        /// No colour chunk, or an sRGB one: sRGB.
        case sRGB
        /// The cICP chunk's code points.
        case cicp(NCLX)
        /// The iCCP chunk's profile (libpng's copy).
        case icc
        /// A gamma (the encoding exponent; nil for sRGB's curve) and chromaticities (nil for sRGB's).
        case gammaAndChromaticities(gamma: Double?, chromaticities: Chromaticities?)
    }

    /// The winning description. A gAMA of 1/2.2 (within 1%) without a cHRM, or with sRGB's, is
    /// sRGB: what every encoder that writes it means, and what libpng's simplified reader takes it for.
    var description: Description {
        if let cicp { return .cicp(cicp) }
        if hasICC { return .icc }
        if hasSRGB || (gamma == nil && chromaticities == nil) { return .sRGB }
        let nearSRGBGamma = gamma.map { abs($0 * 2.2 - 1) < 0.01 } ?? true
        let sRGBPrimaries = chromaticities.map { $0.isClose(to: .sRGB) } ?? true
        if nearSRGBGamma && sRGBPrimaries { return .sRGB }
        return .gammaAndChromaticities(gamma: gamma, chromaticities: chromaticities)
    }

    /// Reads the colour chunks of the PNG in `data`, stopping at the first IDAT (they must come before it).
    init(_ data: [UInt8]) {
        for chunk in PNGChunks(data) {
            if chunk.type == "IDAT" || chunk.type == "IEND" { return }
            if chunk.crcMatches(in: data) { read(chunk.type, Array(data[chunk.body])) }
        }
    }

    /// Takes chunk `type` with `body` when it is valid; the first of each kind counts, as for libpng.
    private mutating func read(_ type: String, _ body: [UInt8]) {
        switch type {
        case "cICP" where body.count == 4 && body[2] == 0 && cicp == nil:
            cicp = NCLX(primaries: Int(body[0]), transfer: Int(body[1]), matrix: 0, fullRange: body[3] != 0)
        case "iCCP": hasICC = true
        case "sRGB" where body.count == 1: hasSRGB = true
        case "gAMA" where body.count == 4 && gamma == nil:
            let value = ByteBox.u32(body, 0)
            if value > 0 { gamma = Double(value) / 100_000 }
        case "cHRM" where body.count == 32 && chromaticities == nil:
            let values = (0..<8).map { Double(ByteBox.u32(body, $0 * 4)) / 100_000 }
            // A y of 0 cannot be turned into XYZ: libpng calls such a chunk invalid.
            guard stride(from: 1, to: 8, by: 2).allSatisfy({ values[$0] > 0 }) else { return }
            chromaticities = Chromaticities(
                white: Chromaticity(x: values[0], y: values[1]), red: Chromaticity(x: values[2], y: values[3]),
                green: Chromaticity(x: values[4], y: values[5]), blue: Chromaticity(x: values[6], y: values[7]))
        default: break
        }
    }
}
