import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Calendar days in one time zone, for the daily allowance: the day's key, the next local
/// midnight, and "yyyy-MM-dd HH:mm" for messages.
///
/// Worked out from the zone's offset from UTC with the proleptic Gregorian calendar's integer
/// arithmetic, because Foundation's `Calendar`, `TimeZone.current` and `DateFormatter` load ICU:
/// about 5 MB of resident memory and a millisecond on every command that converts anything
/// (measured on a photo conversion: peak RSS 45 MB, of which the allowance's calendar was 5).
/// The system's zone is read through libc (`localtime_r`, which honours `TZ` and
/// /etc/localtime as every other program does); an explicit `TimeZone` (tests) asks it.
package struct LocalDay: Sendable {
    private let zone: TimeZone?

    /// Days in `zone`, or in the system's zone when nil.
    package init(zone: TimeZone?) {
        self.zone = zone
    }

    /// The local calendar date and time of `date`.
    package struct Parts: Equatable, Sendable {
        var year: Int
        var month: Int
        package var day: Int
        var hour: Int
        var minute: Int
        var second: Int
        /// Seconds east of UTC.
        var offset: Int
    }

    /// "2026-12-01": the key of `date`'s local day.
    package func key(_ date: Date) -> String {
        let parts = self.parts(date)
        return
            "\(zeroPadded(parts.year, width: 4))-\(zeroPadded(parts.month, width: 2))-\(zeroPadded(parts.day, width: 2))"
    }

    /// "2026-12-01 00:00": `date` in local time, for messages.
    package func describe(_ date: Date) -> String {
        let parts = self.parts(date)
        return key(date) + " \(zeroPadded(parts.hour, width: 2)):\(zeroPadded(parts.minute, width: 2))"
    }

    /// "2026-12-01T00:00:00+01:00" ("Z" for UTC): `date` in local time, ISO 8601 with the
    /// zone's offset, as `ISO8601DateFormatter` writes it with `.withInternetDateTime`.
    package func iso8601(_ date: Date) -> String {
        let parts = self.parts(date)
        let time =
            "\(zeroPadded(parts.hour, width: 2)):\(zeroPadded(parts.minute, width: 2)):\(zeroPadded(parts.second, width: 2))"
        guard parts.offset != 0 else { return key(date) + "T" + time + "Z" }
        let minutes = abs(parts.offset) / 60
        let zone =
            (parts.offset < 0 ? "-" : "+")
            + "\(zeroPadded(minutes / 60, width: 2)):\(zeroPadded(minutes % 60, width: 2))"
        return key(date) + "T" + time + zone
    }

    /// The first local midnight after `date`. Where a daylight-saving change falls on midnight
    /// the zone's offset is read again at the candidate instant, so the answer is the moment the
    /// local date changes.
    func nextMidnight(after date: Date) -> Date {
        let now = Self.seconds(date)
        let localDay = Self.floorDivide(now + offset(now), 86_400)
        let midnight = (localDay + 1) * 86_400
        var candidate = midnight - offset(now)
        candidate = midnight - offset(candidate)
        if candidate <= now { candidate = now + 86_400 }
        return Date(timeIntervalSince1970: TimeInterval(candidate))
    }

    /// The local date and time of `date`.
    package func parts(_ date: Date) -> Parts {
        let now = Self.seconds(date)
        let zoneOffset = offset(now)
        let local = now + zoneOffset
        let days = Self.floorDivide(local, 86_400)
        let second = local - days * 86_400
        let (year, month, day) = Self.civil(days: days)
        return Parts(
            year: year, month: month, day: day, hour: second / 3_600, minute: second % 3_600 / 60,
            second: second % 60, offset: zoneOffset)
    }

    /// Seconds east of UTC at `seconds` since 1970.
    private func offset(_ seconds: Int) -> Int {
        if let zone { return zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    private static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    private static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// The key of the day after the day `key` ("2026-12-02" after "2026-12-01"); nil when
    /// `key` is not `yyyy-MM-dd`.
    static func key(after key: String) -> String? {
        let fields = key.split(separator: "-").compactMap { Int($0) }
        guard fields.count == 3, (1...12).contains(fields[1]), (1...31).contains(fields[2]) else { return nil }
        let (year, month, day) = civil(days: days(year: fields[0], month: fields[1], day: fields[2]) + 1)
        return "\(zeroPadded(year, width: 4))-\(zeroPadded(month, width: 2))-\(zeroPadded(day, width: 2))"
    }

    /// The number of `year-month-day` counted from 1970-01-01 (Howard Hinnant's
    /// `days_from_civil`, the inverse of ``civil(days:)``).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day of the `days`-th day since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`, exact over the whole proleptic Gregorian calendar).
    static func civil(days: Int) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

}
