/// Decoded pixels: interleaved RGB or RGBA, 8 or 16 bits per sample, rows packed without padding.
///
/// 16-bit samples use the full 0...65535 range whatever the source's depth (a 10-bit source is
/// scaled up, not left in the low bits), so every encoder can treat them alike. `sourceBitDepth`
/// remembers the depth the codec delivered, for probes and for deciding whether a 16-bit output
/// carries real information.
package struct Bitmap: Sendable {
    /// The samples, in one of the two storage widths.
    package enum Samples: Sendable {
        case eight([UInt8])
        case sixteen([UInt16])
    }

    package var width: Int
    package var height: Int
    /// 3 (RGB) or 4 (RGBA, straight alpha).
    package var channels: Int
    package var samples: Samples
    /// Bits per sample of the source (8, 10, 12, 16).
    var sourceBitDepth: Int
    /// The ICC profile describing the pixels, when known.
    package var icc: [UInt8]?

    package init(width: Int, height: Int, channels: Int, samples: Samples, sourceBitDepth: Int, icc: [UInt8]? = nil) {
        precondition(channels == 3 || channels == 4, "bitmaps are RGB or RGBA")
        switch samples {
        case .eight(let values): precondition(values.count == width * height * channels, "sample count")
        case .sixteen(let values): precondition(values.count == width * height * channels, "sample count")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
        self.sourceBitDepth = sourceBitDepth
        self.icc = icc
    }

    /// Whether the pixels carry an alpha channel.
    package var hasAlpha: Bool { channels == 4 }

    /// Whether samples are stored 16 bits wide.
    var isSixteenBit: Bool {
        if case .sixteen = samples { return true }
        return false
    }

    /// The 8-bit samples, converting 16-bit ones with correct rounding (v * 255 / 65535, nearest).
    var eightBitSamples: [UInt8] {
        switch samples {
        case .eight(let values): return values
        case .sixteen(let values):
            return values.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        }
    }

    /// This bitmap with 8-bit storage.
    func toEightBit() -> Bitmap {
        guard isSixteenBit else { return self }
        var copy = self
        copy.samples = .eight(eightBitSamples)
        return copy
    }

    /// This bitmap with 16-bit storage (8-bit samples scaled by 257, so 255 maps to 65535).
    func toSixteenBit() -> Bitmap {
        guard case .eight(let values) = samples else { return self }
        var copy = self
        copy.samples = .sixteen(values.map { UInt16($0) * 257 })
        return copy
    }

    /// Whether any pixel is not fully opaque.
    var hasTransparency: Bool {
        guard hasAlpha else { return false }
        switch samples {
        case .eight(let values):
            return stride(from: 3, to: values.count, by: 4).contains { values[$0] != 255 }
        case .sixteen(let values):
            return stride(from: 3, to: values.count, by: 4).contains { values[$0] != 65535 }
        }
    }

    /// This bitmap composited over an opaque `background` colour, without an alpha channel.
    package func flattened(onto background: RGBColor) -> Bitmap {
        guard hasAlpha else { return self }
        var copy = self
        copy.channels = 3
        let count = width * height
        switch samples {
        case .eight(let values):
            let bg = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
            var out = [UInt8](repeating: 0, count: count * 3)
            for i in 0..<count {
                let a = UInt32(values[i * 4 + 3])
                for c in 0..<3 {
                    let v = UInt32(values[i * 4 + c]) * a + bg[c] * (255 - a)
                    out[i * 3 + c] = UInt8((v + 127) / 255)
                }
            }
            copy.samples = .eight(out)
        case .sixteen(let values):
            let bg = [UInt64(background.red) * 257, UInt64(background.green) * 257, UInt64(background.blue) * 257]
            var out = [UInt16](repeating: 0, count: count * 3)
            for i in 0..<count {
                let a = UInt64(values[i * 4 + 3])
                for c in 0..<3 {
                    let v = UInt64(values[i * 4 + c]) * a + bg[c] * (65535 - a)
                    out[i * 3 + c] = UInt16((v + 32767) / 65535)
                }
            }
            copy.samples = .sixteen(out)
        }
        return copy
    }

    /// This bitmap with an opaque alpha channel added (for encoders that want RGBA).
    func withAlpha() -> Bitmap {
        guard !hasAlpha else { return self }
        var copy = self
        copy.channels = 4
        let count = width * height
        switch samples {
        case .eight(let values):
            var out = [UInt8](repeating: 255, count: count * 4)
            for i in 0..<count {
                out[i * 4] = values[i * 3]
                out[i * 4 + 1] = values[i * 3 + 1]
                out[i * 4 + 2] = values[i * 3 + 2]
            }
            copy.samples = .eight(out)
        case .sixteen(let values):
            var out = [UInt16](repeating: 65535, count: count * 4)
            for i in 0..<count {
                out[i * 4] = values[i * 3]
                out[i * 4 + 1] = values[i * 3 + 1]
                out[i * 4 + 2] = values[i * 3 + 2]
            }
            copy.samples = .sixteen(out)
        }
        return copy
    }

    /// This bitmap with EXIF orientation `orientation` (1...8) undone, so it displays upright
    /// without any tag. Values outside 2...8 return the bitmap unchanged.
    func applyingOrientation(_ orientation: Int) -> Bitmap {
        guard (2...8).contains(orientation) else { return self }
        let turn = OrientationTurn(orientation: orientation, width: width, height: height)
        var copy = self
        copy.width = turn.outputWidth
        copy.height = turn.outputHeight
        switch samples {
        case .eight(let values): copy.samples = .eight(turn.turned(values, channels: channels))
        case .sixteen(let values): copy.samples = .sixteen(turn.turned(values, channels: channels))
        }
        return copy
    }
}
