/// What was wrong with a JPEG that libjpeg decoded only with a warning, in words for the
/// conversion's note.
///
/// A file cut short (libjpeg's "Premature end of JPEG file") decodes with its missing part
/// filled in: in a sequential JPEG the rows after the cut repeat the last colour decoded, so the
/// flat rows at the bottom say how much was lost. Other warnings (corrupt entropy data,
/// extraneous bytes before a marker) are repaired by the decoder where they occur.
struct JPEGDamage: Sendable, Equatable {
    /// Whether the file ends before its picture does.
    var truncated: Bool
    /// The share of rows at the bottom that are filled in, when the file was cut short and the
    /// fill can be seen; nil otherwise.
    var missingFraction: Double?

    /// The stray bytes libjpeg skipped between two header segments ("2 extraneous bytes before
    /// marker 0xdb", as some cameras write), when that was what it warned about; nil otherwise.
    var strayHeaderBytes: (count: Int, marker: UInt8)?

    /// Judges a decode of `data` that warned `warning`, from its `pixels` (`channels` samples each).
    init(data: [UInt8], warning: String, pixels: [UInt8], width: Int, height: Int, channels: Int = 3) {
        truncated = warning.contains("Premature end") || !Self.endsWithEOI(data)
        missingFraction = truncated ? Self.flatBottom(pixels, width: width, height: height, channels: channels) : nil
        strayHeaderBytes = truncated ? nil : Self.strayHeaderBytes(in: warning)
    }

    static func == (left: JPEGDamage, right: JPEGDamage) -> Bool {
        left.truncated == right.truncated && left.missingFraction == right.missingFraction
            && left.strayHeaderBytes?.count == right.strayHeaderBytes?.count
            && left.strayHeaderBytes?.marker == right.strayHeaderBytes?.marker
    }

    /// The count and marker of libjpeg's "Corrupt JPEG data: N extraneous bytes before marker
    /// 0xXX" when the marker starts a header segment (not a restart marker or the end of the
    /// image, where the same words mean damaged picture data).
    static func strayHeaderBytes(in warning: String) -> (count: Int, marker: UInt8)? {
        let words = warning.split(separator: " ")
        guard let index = words.firstIndex(of: "extraneous"), index > 0, let count = Int(words[index - 1]),
            let last = words.last, last.hasPrefix("0x"), let marker = UInt8(last.dropFirst(2), radix: 16),
            !(0xD0...0xD9).contains(marker)
        else { return nil }
        return (count, marker)
    }

    /// Damage a streamed decode reported: whether the file ended early, and the share of the
    /// picture's rows decoded before it did.
    init(truncated: Bool, decodedFraction: Double?) {
        self.truncated = truncated
        missingFraction = truncated ? decodedFraction.map { max(0, 1 - $0) } : nil
    }

    /// The note for the conversion's result.
    var note: String {
        if let stray = strayHeaderBytes {
            return Self.strayBytesNote(count: stray.count, marker: stray.marker)
        }
        guard truncated else {
            return "corrupt data in the picture, repaired by the decoder (some areas may look wrong)"
        }
        if let missingFraction, missingFraction >= 0.005 {
            let percent = max(1, Int((missingFraction * 100).rounded()))
            return
                "the file ends early (an interrupted copy or download): the bottom \(percent)% of the picture is missing (shown grey)"
        }
        return "the file ends early (an interrupted copy or download): the end of the picture may be missing"
    }

    /// The note for stray bytes skipped between header segments.
    static func strayBytesNote(count: Int, marker: UInt8) -> String {
        let hex = String(marker, radix: 16)
        return
            "\(count) stray byte\(count == 1 ? "" : "s") before the JPEG marker 0x\(hex) skipped, as libjpeg and viewers skip them"
    }

    /// Whether the stream ends with EOI (trailing padding bytes allowed).
    static func endsWithEOI(_ data: [UInt8]) -> Bool {
        var end = data.count
        while end > 2, data[end - 1] == 0 { end -= 1 }
        return end >= 2 && data[end - 2] == 0xFF && data[end - 1] == 0xD9
    }

    /// The share of rows at the bottom whose every pixel is the last pixel's colour (±2).
    private static func flatBottom(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> Double? {
        guard width > 0, height > 0, channels > 0, pixels.count >= width * height * channels else { return nil }
        let last = Array(pixels[(pixels.count - channels)...])
        var flatRows = 0
        rows: for row in stride(from: height - 1, through: 0, by: -1) {
            let start = row * width * channels
            for index in stride(from: start, to: start + width * channels, by: channels) {
                for channel in 0..<channels where abs(Int(pixels[index + channel]) - Int(last[channel])) > 2 {
                    break rows
                }
            }
            flatRows += 1
        }
        // A photo whose bottom is one flat colour by nature (a white margin) reads the same:
        // no figure is given unless the file really ends early, which `truncated` says.
        return flatRows == height ? nil : Double(flatRows) / Double(height)
    }
}
