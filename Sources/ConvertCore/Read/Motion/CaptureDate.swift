import FoundationEssentials
import Glibc

/// When a photo was taken, from its EXIF DateTimeOriginal and OffsetTimeOriginal.
struct CaptureDate: Sendable, Equatable {
    /// Seconds since 1970 UTC.
    var secondsSince1970: Int
    /// Whether the EXIF gave the UTC offset; without one the local time is read as UTC.
    var hasOffset: Bool
    /// The date in UTC, `2020-07-10 06:16:29 UTC`.
    package var text: String

    /// EXIF OffsetTimeOriginal (`+02:00`).
    static let offsetTimeOriginal: UInt16 = 0x9011

    /// The capture time of the JPEG or HEIC `file`, or nil when it records none.
    package static func of(photo file: [UInt8]) -> CaptureDate? {
        guard let tiff = PhotoEXIF.tiff(of: file), let exif = Exif(tiff: tiff) else { return nil }
        guard let original = exif.dateTimeOriginal else { return nil }
        let offsetEntry = exif.ifd0.entry(Exif.Tag.exifIFD)?.child?.entry(offsetTimeOriginal)
        let offsetText = offsetEntry.map { String(decoding: $0.value.prefix { $0 != 0 }, as: UTF8.self) }
        return parse(original, offset: offsetText)
    }

    /// `2020:07:10 06:16:29` with an optional `+hh:mm` offset.
    package static func parse(_ local: String, offset: String?) -> CaptureDate? {
        let numbers = local.split(whereSeparator: { ":- ".contains($0) }).compactMap { Int($0) }
        guard numbers.count >= 6, numbers[0] > 1904 else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (
            Int32(clamping: numbers[0] - 1900), Int32(clamping: numbers[1] - 1), Int32(clamping: numbers[2])
        )
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (
            Int32(clamping: numbers[3]), Int32(clamping: numbers[4]), Int32(clamping: numbers[5])
        )
        var seconds = Int(timegm(&parts))
        var hasOffset = false
        if let offset, offset.count == 6, let sign = offset.first, "+-".contains(sign) {
            let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
            if parts.count == 2 {
                seconds -= (sign == "-" ? -1 : 1) * (parts[0] * 3600 + parts[1] * 60)
                hasOffset = true
            }
        }
        return CaptureDate(secondsSince1970: seconds, hasOffset: hasOffset, text: utcText(seconds))
    }

    /// "2020-07-10 06:16:29 UTC" for `seconds` since 1970.
    private static func utcText(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        _ = gmtime_r(&time, &parts)
        let date =
            "\(zeroPadded(Int(parts.tm_year) + 1900, width: 4))-\(zeroPadded(Int(parts.tm_mon) + 1, width: 2))-\(zeroPadded(Int(parts.tm_mday), width: 2))"
        return date
            + " \(zeroPadded(Int(parts.tm_hour), width: 2)):\(zeroPadded(Int(parts.tm_min), width: 2)):\(zeroPadded(Int(parts.tm_sec), width: 2)) UTC"
    }
}
