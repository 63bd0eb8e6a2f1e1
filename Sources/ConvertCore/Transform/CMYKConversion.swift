/// Turns the ink samples of a CMYK or YCCK photo (print-shop and Photoshop exports, many stock
/// photos) into RGB a screen shows.
///
/// With an embedded CMYK profile the samples go through it to sRGB with lcms2, as Photoshop,
/// Pillow's ImageCms and ImageMagick do. Without one there is no right answer: the samples are
/// turned by the plain formula R = (1 − C)(1 − K) (and G, B from M, Y), which is what Pillow and
/// ImageMagick do, rather than by an assumed press profile (libvips's choice, visibly different
/// from both).
enum CMYKConversion {
    /// The RGB picture, its profile, and a note saying how it was made.
    struct Result {
        /// Interleaved 8-bit RGB, three samples per pixel.
        var rgb: [UInt8]
        /// sRGB's profile when the embedded profile was used; nil after the plain formula.
        var icc: [UInt8]?
        /// What the conversion did, for the result's notes.
        var note: String
    }

    /// Converts `pixelCount` pixels of interleaved C, M, Y, K `samples` (255 = no ink when
    /// `inverted`, as in every JPEG with Adobe's APP14 marker) through `profile` when it is a
    /// readable CMYK profile.
    static func rgb(cmyk samples: [UInt8], pixelCount: Int, inverted: Bool, profile: [UInt8]?) -> Result {
        precondition(samples.count == pixelCount * 4, "four samples a pixel")
        if let profile {
            if let result = throughProfile(samples, pixelCount: pixelCount, inverted: inverted, profile: profile) {
                return result
            }
            return Result(
                rgb: plain(samples, pixelCount: pixelCount, inverted: inverted), icc: nil,
                note: "CMYK converted to RGB by the plain formula: its colour profile could not be used")
        }
        return Result(
            rgb: plain(samples, pixelCount: pixelCount, inverted: inverted), icc: nil,
            note: "CMYK converted to RGB by the plain formula (the file has no colour profile)")
    }

    private static func throughProfile(_ samples: [UInt8], pixelCount: Int, inverted: Bool, profile: [UInt8]) -> Result?
    {
        // lcms2 reads ink as 0 = none; Adobe's stored samples are turned the right way first.
        guard let converted = ColorProfiles.cmykToSRGB(inverted ? samples.map { 255 - $0 } : samples, icc: profile)
        else { return nil }
        let name = LCMSProfile.open(profile)?.profileDescription.map { " (\"\($0)\")" } ?? ""
        return Result(
            rgb: converted.rgb, icc: converted.icc, note: "CMYK converted to sRGB through its colour profile\(name)")
    }

    /// R = (1 − C)(1 − K), G = (1 − M)(1 − K), B = (1 − Y)(1 − K), rounded.
    private static func plain(_ samples: [UInt8], pixelCount: Int, inverted: Bool) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: pixelCount * 3) { buffer, initialized in
            samples.withUnsafeBufferPointer { input in
                for pixel in 0..<pixelCount {
                    // "Paper" is what is left of 255 once the ink is taken away.
                    let paper = { (sample: UInt8) -> Int in inverted ? Int(sample) : 255 - Int(sample) }
                    let black = paper(input[4 * pixel + 3])
                    for channel in 0..<3 {
                        buffer[3 * pixel + channel] = UInt8((paper(input[4 * pixel + channel]) * black + 127) / 255)
                    }
                }
            }
            initialized = pixelCount * 3
        }
    }
}
