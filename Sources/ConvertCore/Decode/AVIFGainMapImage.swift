import Glibc

/// An AVIF's gain-map image (the second input of its `tmap` item, a hidden AV1 item) decoded into
/// one 8-bit plane in the logarithmic coding (its samples, row by row, which ``HeifGainMap``
/// makes its plane).
///
/// libheif 1.15 does not know `tmap` and gives no handle to a hidden item, so the item is
/// rewrapped, with its own codec configuration, size and colour properties, as the primary of a
/// small AVIF in memory, which libheif then decodes like any other. The map is read as RGB, as
/// libavif reads it, and a three-channel map (libavif writes one per colour) is made one channel:
/// each pixel's boost is the luminance-weighted mean of its channels' boosts in stops, coded with
/// parameters that span them (``GainMapMetadata/spanning(_:)``), since offconvert's outputs carry
/// a single-channel map.
enum AVIFGainMapImage {
    /// The most pixels a gain map may have (a map is at most the picture's size).
    private static let maximumPixels = 64 << 20
    /// The most coded bytes of a gain-map item read.
    private static let maximumItemBytes = 64 << 20
    /// BT.709 luminance weights of R, G and B: how much each channel's boost counts.
    private static let weights: [Double] = [0.2126, 0.7152, 0.0722]

    /// The plane of AV1 item `item` of `file` coded with `target`, each channel read with its
    /// parameters in `channels` (one applies to all three); nil when the item is not one this
    /// can rewrap or libheif cannot decode it.
    static func plane(
        _ file: HeifFile, item: UInt32, channels: [GainMapMetadata], target: GainMapMetadata, path: String,
        cancellation: CancellationFlag
    ) throws(ConvertError) -> Samples? {
        guard let wrapped = wrapped(file, item: item) else { return nil }
        try cancellation.check()
        let bitmap: Bitmap
        do {
            bitmap = try HeifContext(bytes: wrapped, path: path).primaryImage().decode(cancellation: cancellation)
        } catch {
            if error.code == .cancelled { throw error }
            return nil
        }
        return combined(bitmap, channels: channels, target: target)
    }

    /// A decoded map's one channel: `width` × `height` 8-bit samples.
    struct Samples {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    /// The one-channel samples of RGB `bitmap`, a gain map whose channels `channels` describe,
    /// coded with `target`.
    static func combined(_ bitmap: Bitmap, channels: [GainMapMetadata], target: GainMapMetadata) -> Samples? {
        guard bitmap.channels >= 3, !channels.isEmpty, target.maxStops > target.minStops || channels.count == 1
        else { return nil }
        let perChannel = (0..<3).map { channels[min($0, channels.count - 1)] }
        let top = bitmap.isSixteenBit ? 65535 : 255
        // Each channel's boost in stops for every code (a table: the map has few distinct codes).
        let stops = perChannel.map { metadata in
            (0...top).map { code in
                let value = pow(Double(code) / Double(top), 1 / metadata.gamma)
                return metadata.minStops + (metadata.maxStops - metadata.minStops) * value
            }
        }
        let span = target.maxStops - target.minStops
        func code(_ boost: Double) -> UInt8 {
            guard span > 0 else { return 0 }
            let fraction = max(0, min(1, (boost - target.minStops) / span))
            return UInt8((pow(fraction, target.gamma) * 255).rounded())
        }
        let count = bitmap.width * bitmap.height
        var pixels = [UInt8](repeating: 0, count: count)
        let step = bitmap.channels
        func fill(_ samples: [some BinaryInteger]) {
            for index in 0..<count {
                var boost = 0.0
                for channel in 0..<3 {
                    boost += weights[channel] * stops[channel][Int(samples[index * step + channel])]
                }
                pixels[index] = code(boost)
            }
        }
        switch bitmap.samples {
        case .eight(let values): fill(values)
        case .sixteen(let values): fill(values)
        }
        return Samples(width: bitmap.width, height: bitmap.height, pixels: pixels)
    }

    /// A one-item AVIF whose primary is `item` of `file` (see ``properties(_:item:)``); nil when
    /// the item is not one it can rewrap or its data cannot be read.
    private static func wrapped(_ file: HeifFile, item: UInt32) -> [UInt8]? {
        guard let properties = properties(file, item: item),
            let data = try? file.meta.data(of: item, limit: maximumItemBytes)
        else { return nil }
        let ftyp = ByteBox.box("ftyp", Array("avif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8))
        // The meta box's size does not depend on the offset it states, so one measure places the data.
        let offset = ftyp.count + meta(properties, dataOffset: 0, dataLength: data.count).count + 8
        return ftyp + meta(properties, dataOffset: offset, dataLength: data.count) + ByteBox.box("mdat", data)
    }

    /// The property boxes of AV1 item `item` that its pixels depend on: `av1C`, `ispe`, nclx
    /// colour (the map's matrix) and `pixi`; not its transforms, which the caller applies. Nil
    /// without a codec configuration or size, or for a map over ``maximumPixels``.
    private static func properties(_ file: HeifFile, item: UInt32) -> [[UInt8]]? {
        guard file.meta.types[item] == "av01" else { return nil }
        var configuration: [UInt8]?
        var size: (width: Int, height: Int)?
        var extra: [[UInt8]] = []
        for association in file.meta.properties[item] ?? [] {
            switch association.property {
            case .av1C(let record): configuration = record
            case .ispe(let width, let height): size = (width, height)
            case .nclx(let nclx):
                let codes = [nclx.primaries.code, nclx.transfer.code, nclx.matrix.code].flatMap {
                    ByteBox.bigEndian16(UInt32(truncatingIfNeeded: $0))
                }
                extra.append(ByteBox.box("colr", Array("nclx".utf8) + codes + [nclx.fullRange ? 0x80 : 0]))
            case .pixi(let bits):
                extra.append(
                    ByteBox.box("pixi", [0, 0, 0, 0, UInt8(clamping: bits.count)] + bits.map { UInt8(clamping: $0) }))
            default: break
            }
        }
        guard let configuration, let size, size.width > 0, size.height > 0, size.width * size.height <= maximumPixels
        else { return nil }
        let (width, height) = (UInt32(truncatingIfNeeded: size.width), UInt32(truncatingIfNeeded: size.height))
        let extents = ByteBox.box("ispe", [0, 0, 0, 0] + ByteBox.bigEndian32(width) + ByteBox.bigEndian32(height))
        return [ByteBox.box("av1C", configuration), extents] + extra
    }

    /// The `meta` box of a file whose one item, the primary, has `properties` (all essential)
    /// and its data at `dataOffset` in the file.
    private static func meta(_ properties: [[UInt8]], dataOffset: Int, dataLength: Int) -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: 4)
        let handler = ByteBox.box("hdlr", zeros + zeros + Array("pict".utf8) + zeros + zeros + zeros + [0])
        let extent =
            ByteBox.bigEndian32(UInt32(truncatingIfNeeded: dataOffset))
            + ByteBox.bigEndian32(UInt32(truncatingIfNeeded: dataLength))
        let location = ByteBox.box(
            "iloc",
            zeros + [0x44, 0] + ByteBox.bigEndian16(1) + ByteBox.bigEndian16(1) + ByteBox.bigEndian16(0)
                + ByteBox.bigEndian16(1) + extent)
        let entry = ByteBox.box(
            "infe", [2, 0, 0, 0] + ByteBox.bigEndian16(1) + ByteBox.bigEndian16(0) + Array("av01".utf8) + [0])
        let links = properties.indices.map { UInt8(0x80 | ($0 + 1)) }
        let association = ByteBox.box(
            "ipma", zeros + ByteBox.bigEndian32(1) + ByteBox.bigEndian16(1) + [UInt8(links.count)] + links)
        let itemProperties = ByteBox.box("iprp", ByteBox.box("ipco", properties.flatMap { $0 }) + association)
        let primary = ByteBox.box("pitm", zeros + ByteBox.bigEndian16(1))
        return ByteBox.box(
            "meta",
            zeros + handler + primary + location + ByteBox.box("iinf", zeros + ByteBox.bigEndian16(1) + entry)
                + itemProperties)
    }
}
