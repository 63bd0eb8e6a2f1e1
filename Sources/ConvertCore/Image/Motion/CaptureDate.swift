import Foundation

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
        var components = DateComponents()
        (components.year, components.month, components.day) = (numbers[0], numbers[1], numbers[2])
        (components.hour, components.minute, components.second) = (numbers[3], numbers[4], numbers[5])
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: components) else { return nil }
        var seconds = Int(date.timeIntervalSince1970)
        var hasOffset = false
        if let offset, offset.count == 6, let sign = offset.first, "+-".contains(sign) {
            let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
            if parts.count == 2 {
                seconds -= (sign == "-" ? -1 : 1) * (parts[0] * 3600 + parts[1] * 60)
                hasOffset = true
            }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = utc
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return CaptureDate(secondsSince1970: seconds, hasOffset: hasOffset,
                           text: formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }
}
