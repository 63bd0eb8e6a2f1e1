import FoundationEssentials
import Glibc

/// Computes an Ultra HDR gain map from an HDR picture and its SDR rendition, row by row: for
/// each 2×2 block (a map of half the picture's width and height, a quarter of its pixels, as
/// Apple's are; measured on the fixtures, a 4×4 map lost 4.7 dB of the HDR rendition's PSNR on
/// hdr-stills/pq and 2.5 dB on canon-422-pq, whose edges it blurs across) the log2 ratio of
/// the block's mean HDR luminance to its mean SDR luminance (both linear, SDR white = 1), each
/// with libultrahdr's offset of 1/64 so that black does not divide by zero. The map is then
/// quantised to 8 bits between its smallest and largest value (gamma 1), which the metadata
/// states as the boost range.
package struct GainMapBuilder: Sendable {
    /// Source pixels per map sample along each side.
    package static let scale = 2
    /// The offset added to both renditions (libultrahdr's kSdrOffset and kHdrOffset).
    package static let offset: Float = 1.0 / 64

    package let width: Int
    package let height: Int
    private let sourceWidth: Int
    private let sourceHeight: Int
    private var hdrSums: [Float]
    private var sdrSums: [Float]
    /// log2(HDR / SDR) of every map sample, row by row.
    private var stops: [Float]

    /// A builder for a picture of `sourceWidth`×`sourceHeight` that is given the source rows
    /// `rows` (all of them by default), which start on a block's first row; bands built apart
    /// are put together with ``init(joining:)``.
    package init(width sourceWidth: Int, height sourceHeight: Int, rows: Range<Int>? = nil) {
        let rows = rows ?? 0..<sourceHeight
        precondition(rows.lowerBound % Self.scale == 0, "A gain map band starts on a block's first row")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        width = (sourceWidth + Self.scale - 1) / Self.scale
        height = (sourceHeight + Self.scale - 1) / Self.scale
        hdrSums = [Float](repeating: 0, count: width)
        sdrSums = [Float](repeating: 0, count: width)
        stops = []
        stops.reserveCapacity(width * ((rows.count + Self.scale - 1) / Self.scale))
    }

    /// The builders of consecutive bands of one picture, top to bottom, as one; nil for none.
    package init?(joining bands: [GainMapBuilder]) {
        guard var joined = bands.first else { return nil }
        joined.stops.reserveCapacity(joined.width * joined.height)
        for band in bands.dropFirst() {
            precondition(
                band.sourceWidth == joined.sourceWidth && band.sourceHeight == joined.sourceHeight,
                "Gain map bands of different pictures")
            joined.stops.append(contentsOf: band.stops)
        }
        self = joined
    }

    /// The bytes this builder holds for a picture of `width`×`height` (its float map), for the
    /// memory estimate.
    package static func workingBytes(width: Int, height: Int) -> Int64 {
        Int64((width + scale - 1) / scale) * Int64((height + scale - 1) / scale) * 5
    }

    /// Adds source row `row`'s linear luminance of both renditions; rows come in order.
    package mutating func add(row: Int, hdr: [Float], sdr: [Float]) {
        for x in 0..<sourceWidth {
            hdrSums[x / Self.scale] += hdr[x]
            sdrSums[x / Self.scale] += sdr[x]
        }
        guard row % Self.scale == Self.scale - 1 || row == sourceHeight - 1 else { return }
        // Both means share the block's pixel count, so the ratio of sums is the ratio of means
        // except for the offset, which is scaled by the count.
        let rows = row % Self.scale + 1
        for x in 0..<width {
            let columns = min(Self.scale, sourceWidth - x * Self.scale)
            let count = Float(rows * columns)
            stops.append(log2((hdrSums[x] / count + Self.offset) / (sdrSums[x] / count + Self.offset)))
            hdrSums[x] = 0
            sdrSums[x] = 0
        }
    }

    /// The 8-bit map and its metadata; the headroom is the largest boost.
    package func finish() -> (plane: GrayPlane, metadata: GainMapMetadata) {
        let low = min(0, Double(stops.min() ?? 0))
        let high = max(low + 0.01, Double(stops.max() ?? 0))
        let span = Float(high - low)
        let pixels = stops.map { UInt8(max(0, min(255, (($0 - Float(low)) / span * 255).rounded()))) }
        var metadata = GainMapMetadata(minStops: low, maxStops: high, alternateHeadroomStops: high)
        metadata.baseOffset = Double(Self.offset)
        metadata.alternateOffset = Double(Self.offset)
        return (GrayPlane(width: width, height: height, pixels: pixels), metadata)
    }
}
