internal import CLCMS

/// Owns an lcms2 profile (`cmsHPROFILE`); closed with `cmsCloseProfile`.
final class LCMSProfile {
    fileprivate let handle: cmsHPROFILE

    private init(_ handle: cmsHPROFILE) { self.handle = handle }

    deinit { cmsCloseProfile(handle) }

    /// Opens an ICC profile held in memory; nil when lcms2 cannot parse it.
    static func open(_ bytes: [UInt8]) -> LCMSProfile? {
        guard !bytes.isEmpty,
            let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        else { return nil }
        return LCMSProfile(handle)
    }

    /// lcms2's built-in sRGB profile.
    static func sRGB() -> LCMSProfile? { cmsCreate_sRGBProfile().map(LCMSProfile.init) }

    /// A matrix/TRC RGB profile with the given white point (D65 unless told), primaries and
    /// transfer curve, named `description`.
    static func rgb(
        primaries: ColorProfiles.Primaries, curve: ColorProfiles.Curve, description: String,
        white whitePoint: (Double, Double) = (0.3127, 0.3290)
    ) -> LCMSProfile? {
        var white = cmsCIExyY(x: whitePoint.0, y: whitePoint.1, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: primaries.red.0, y: primaries.red.1, Y: 1),
            Green: cmsCIExyY(x: primaries.green.0, y: primaries.green.1, Y: 1),
            Blue: cmsCIExyY(x: primaries.blue.0, y: primaries.blue.1, Y: 1))
        // Parametric type 4 (IEC 61966-2.1 form): Y = (aX + b)^g for X >= d, else cX.
        var parameters: [Double] = [curve.gamma, curve.a, curve.b, curve.c, curve.d]
        guard let tone = cmsBuildParametricToneCurve(nil, 4, &parameters) else { return nil }
        defer { cmsFreeToneCurve(tone) }
        var curves: [OpaquePointer?] = [tone, tone, tone]
        guard let handle = cmsCreateRGBProfile(&white, &triple, &curves) else { return nil }
        let profile = LCMSProfile(handle)
        if let text = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(text, "en", "US", description)
            cmsWriteTag(handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(text))
            cmsMLUfree(text)
        }
        return profile
    }

    /// The profile serialised to ICC bytes, with the header's creation date pinned to
    /// ``creationDate``: lcms2 stamps the time the profile object was made, which made the same
    /// conversion give different bytes from one minute to the next.
    var bytes: [UInt8]? {
        var size: UInt32 = 0
        guard cmsSaveProfileToMem(handle, nil, &size) != 0, size > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(handle, &out, &size) != 0, size >= 128 else { return nil }
        out.replaceSubrange(Self.dateField, with: Self.creationDate)
        return Array(out.prefix(Int(size)))
    }

    /// Where an ICC header keeps its creation date: six big-endian 16-bit numbers.
    private static let dateField = 24..<36
    /// 2024-01-01 00:00:00 as an ICC dateTimeNumber. Any fixed date will do: no reader uses it,
    /// and lcms2 writes no profile ID (the MD5 that would cover it) unless asked.
    private static let creationDate: [UInt8] = [0x07, 0xE8, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]

    /// The profile's description tag ("Display P3", ...).
    var profileDescription: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let written = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, UInt32(buffer.count))
        guard written > 0 else { return nil }
        let text = String(nulTerminated: buffer)
        return text.isEmpty ? nil : text
    }

    /// Channels of the profile's data colour space.
    var channelCount: Int { Int(cmsChannelsOf(cmsGetColorSpace(handle))) }

    /// Whether the profile describes RGB data (a CMYK or grey profile cannot tag RGB pixels).
    var isRGB: Bool { cmsGetColorSpace(handle) == cmsSigRgbData }
}

/// Owns an lcms2 transform (`cmsHTRANSFORM`); deleted with `cmsDeleteTransform`.
final class LCMSTransform {
    private let handle: cmsHTRANSFORM

    init?(from source: LCMSProfile, to target: LCMSProfile, sixteenBit: Bool, alpha: Bool) {
        let format: UInt32 =
            sixteenBit
            ? (alpha ? offc_lcms_type_rgba_16() : offc_lcms_type_rgb_16())
            : (alpha ? offc_lcms_type_rgba_8() : offc_lcms_type_rgb_8())
        let flags: UInt32 = alpha ? UInt32(cmsFLAGS_COPY_ALPHA) : 0
        guard
            let handle = cmsCreateTransform(
                source.handle, format, target.handle, format, UInt32(INTENT_PERCEPTUAL), flags)
        else { return nil }
        self.handle = handle
    }

    /// A transform from RGB(A) pixels, 8 or 16 bits, in `source` to 32-bit float RGB(A) in
    /// `target` (alpha copied, scaled to 0...1); nil when lcms2 cannot make it.
    init?(toFloatFrom source: LCMSProfile, to target: LCMSProfile, sixteenBit: Bool, alpha: Bool) {
        let input: UInt32 =
            sixteenBit
            ? (alpha ? offc_lcms_type_rgba_16() : offc_lcms_type_rgb_16())
            : (alpha ? offc_lcms_type_rgba_8() : offc_lcms_type_rgb_8())
        let output = alpha ? offc_lcms_type_rgba_flt() : offc_lcms_type_rgb_flt()
        let flags: UInt32 = alpha ? UInt32(cmsFLAGS_COPY_ALPHA) : 0
        guard
            let handle = cmsCreateTransform(
                source.handle, input, target.handle, output, UInt32(INTENT_PERCEPTUAL), flags)
        else { return nil }
        self.handle = handle
    }

    /// A transform from CMYK pixels (four samples, 0 no ink) in `source` to RGB in `target`,
    /// 8 or 16 bits both sides; nil when lcms2 cannot make it (a profile that is not CMYK).
    init?(cmykFrom source: LCMSProfile, to target: LCMSProfile, sixteenBit: Bool) {
        guard
            let handle = cmsCreateTransform(
                source.handle, sixteenBit ? offc_lcms_type_cmyk_16() : offc_lcms_type_cmyk_8(), target.handle,
                sixteenBit ? offc_lcms_type_rgb_16() : offc_lcms_type_rgb_8(), UInt32(INTENT_PERCEPTUAL), 0)
        else { return nil }
        self.handle = handle
    }

    deinit { cmsDeleteTransform(handle) }

    /// Transforms `count` pixels from `input` to `output` (which must hold `count` pixels of
    /// the transform's output format).
    func apply(_ input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, count: Int) {
        cmsDoTransform(handle, input, output, UInt32(count))
    }

    /// Transforms `count` pixels in place.
    func apply(_ buffer: UnsafeMutableRawPointer, count: Int) {
        cmsDoTransform(handle, buffer, buffer, UInt32(count))
    }
}

/// Colour profiles for photos: matching ICC profiles for nclx-only sources, profile descriptions
/// for probes, and conversion to sRGB.
enum ColorProfiles {
    /// Chromaticities of red, green, blue (x, y).
    struct Primaries {
        var red: (Double, Double)
        var green: (Double, Double)
        var blue: (Double, Double)

        static let bt709 = Primaries(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))
        static let displayP3 = Primaries(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        static let bt2020 = Primaries(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046))
        /// BT.601 625-line (BT.470 System B/G, nclx primaries 5): PAL cameras, Nokia's HEIFs.
        static let bt601PAL = Primaries(red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06))
        /// BT.601 525-line (SMPTE 170M and 240M, nclx primaries 6 and 7).
        static let bt601NTSC = Primaries(red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070))
    }

    /// A transfer curve in lcms2's parametric type 4 form.
    struct Curve {
        var gamma: Double, a: Double, b: Double, c: Double, d: Double

        static let sRGB = Curve(gamma: 2.4, a: 1 / 1.055, b: 0.055 / 1.055, c: 1 / 12.92, d: 0.04045)
        static let bt709 = Curve(gamma: 1 / 0.45, a: 1 / 1.099, b: 0.099 / 1.099, c: 1 / 4.5, d: 0.081)
        /// Linear light (Y = X).
        static let linear = Curve(gamma: 1, a: 1, b: 0, c: 1, d: 0)

        /// A pure power law, Y = X^gamma (a PNG's gAMA is 1/gamma; H.273 transfers 4 and 5).
        static func power(_ gamma: Double) -> Curve { Curve(gamma: gamma, a: 1, b: 0, c: 1, d: 0) }
    }

    /// An ICC profile matching an nclx description, and a note when the match is approximate.
    /// nil when the primaries are not ones offconvert knows.
    static func icc(for nclx: NCLX) -> (icc: [UInt8], note: String?)? {
        let curve: Curve
        var note: String?
        switch nclx.transfer.code {
        case 1, 6, 14, 15: curve = .bt709
        case 4: curve = .power(2.2)
        case 5: curve = .power(2.8)
        case 8: curve = .linear
        case 16, 18:
            // PQ and HLG cannot be described by an ICC matrix/TRC profile; the pixels keep their
            // HDR encoding and the BT.709 curve is the closest SDR reading.
            curve = .bt709
            note = "HDR transfer (PQ/HLG) not tone-mapped"
        default: curve = .sRGB
        }
        let profile: LCMSProfile?
        switch nclx.primaries.code {
        case 1, 2:
            profile =
                nclx.transfer.code == 13 || nclx.transfer.code == 2
                ? LCMSProfile.sRGB() : .rgb(primaries: .bt709, curve: curve, description: "BT.709")
        case 12: profile = .rgb(primaries: .displayP3, curve: curve, description: "Display P3")
        case 9: profile = .rgb(primaries: .bt2020, curve: curve, description: "BT.2020")
        case 5: profile = .rgb(primaries: .bt601PAL, curve: curve, description: "BT.601 (625 lines)")
        case 6, 7: profile = .rgb(primaries: .bt601NTSC, curve: curve, description: "BT.601 (525 lines)")
        default: return nil
        }
        guard let bytes = profile?.bytes else { return nil }
        return (bytes, note)
    }

    /// An ICC profile for a PNG's gAMA and cHRM chunks (PNG 3rd edition, 11.3.2.2 and 11.3.2.3):
    /// the chunks' white point and primaries (sRGB's when there is no cHRM) and the power law
    /// 1/gAMA (sRGB's curve when there is no gAMA). Nil when lcms2 cannot build it (primaries
    /// that span no colour space).
    static func icc(gamma: Double?, chromaticities: PNGColorChunks.Chromaticities?) -> [UInt8]? {
        let points = chromaticities ?? .sRGB
        let primaries = Primaries(
            red: (points.red.x, points.red.y), green: (points.green.x, points.green.y),
            blue: (points.blue.x, points.blue.y))
        let curve = gamma.map { Curve.power(1 / $0) } ?? .sRGB
        var name = gamma.map { "gamma \(Self.decimal(1 / $0))" } ?? "sRGB curve"
        if chromaticities != nil { name += ", PNG cHRM primaries" }
        return LCMSProfile.rgb(
            primaries: primaries, curve: curve, description: "PNG gAMA/cHRM (\(name))",
            white: (points.white.x, points.white.y))?.bytes
    }

    /// `value` with at most two decimals ("2.2", "1.6", "2.86").
    private static func decimal(_ value: Double) -> String {
        var text = fixed(value, digits: 2)
        while text.hasSuffix("0") { text.removeLast() }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// The number of colour channels an ICC profile describes (1 grey, 3 RGB, 4 CMYK), or nil
    /// when lcms2 cannot parse it.
    static func channelCount(_ icc: [UInt8]) -> Int? {
        guard let profile = LCMSProfile.open(icc) else { return nil }
        return profile.channelCount
    }

    /// The description of an ICC profile, or nil when it cannot be parsed.
    static func describe(_ icc: [UInt8]) -> String? { LCMSProfile.open(icc)?.profileDescription }

    /// Converts interleaved CMYK samples (four per pixel, 0 no ink, 8- or 16-bit values in
    /// `cmyk`) described by the CMYK profile `icc` to RGB samples in sRGB, with the sRGB profile's
    /// bytes to tag them; nil when the profile is not a CMYK one lcms2 can use.
    static func cmykToSRGB<Sample: FixedWidthInteger>(_ cmyk: [Sample], icc: [UInt8]) -> (rgb: [Sample], icc: [UInt8])?
    {
        guard Sample.bitWidth == 8 || Sample.bitWidth == 16, channelCount(icc) == 4, let source = LCMSProfile.open(icc),
            let target = LCMSProfile.sRGB(), let targetBytes = target.bytes,
            let transform = LCMSTransform(cmykFrom: source, to: target, sixteenBit: Sample.bitWidth == 16)
        else { return nil }
        let count = cmyk.count / 4
        var rgb = [Sample](repeating: 0, count: count * 3)
        cmyk.withUnsafeBytes { input in
            rgb.withUnsafeMutableBytes { output in
                guard let from = input.baseAddress, let to = output.baseAddress, count > 0 else { return }
                transform.apply(from, to: to, count: count)
            }
        }
        return (rgb, targetBytes)
    }

    /// Converts `bitmap` from its ICC profile to sRGB and tags it with lcms2's sRGB profile.
    /// A bitmap without a profile is taken to be sRGB already and only gets the tag.
    static func convertToSRGB(_ bitmap: Bitmap, path: String) throws(ConvertError) -> Bitmap {
        guard let target = LCMSProfile.sRGB(), let targetBytes = target.bytes else {
            throw ConvertError(code: .internalColor, message: "Could not create the sRGB profile.", path: path)
        }
        var result = bitmap
        result.icc = targetBytes
        guard let icc = bitmap.icc else { return result }
        guard let source = LCMSProfile.open(icc), source.isRGB,
            let transform = LCMSTransform(
                from: source, to: target, sixteenBit: bitmap.isSixteenBit, alpha: bitmap.hasAlpha)
        else {
            throw ConvertError(
                code: .inputColorProfile,
                message: "\(path) has a colour profile that cannot be converted to sRGB.", path: path)
        }
        let count = bitmap.width * bitmap.height
        switch bitmap.samples {
        case .eight(var values):
            values.withUnsafeMutableBytes { transform.apply($0.baseAddress!, count: count) }
            result.samples = .eight(values)
        case .sixteen(var values):
            values.withUnsafeMutableBytes { transform.apply($0.baseAddress!, count: count) }
            result.samples = .sixteen(values)
        }
        return result
    }
}
