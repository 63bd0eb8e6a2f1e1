import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

/// The allowance's own calendar arithmetic (``LocalDay``) against Foundation's `Calendar`, which
/// it replaces on the conversion path.
@Suite("Local day")
struct LocalDayTests {
    private func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test(
        "dates from days since 1970 match Foundation's Gregorian calendar from 1587 to 3968 (before 1582 Foundation counts Julian dates)"
    )
    func civilDates() {
        let utc = calendar(TimeZone(identifier: "UTC")!)
        for days in stride(from: -140_000, through: 730_000, by: 1_331) {
            let parts = utc.dateComponents(
                [.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            let (year, month, day) = LocalDay.civil(days: days)
            #expect([year, month, day] == [parts.year, parts.month, parts.day], "day \(days)")
        }
    }

    @Test("keys, times and next midnights in Paris across both daylight-saving changes match Calendar's")
    func paris() {
        let zone = TimeZone(identifier: "Europe/Paris")!
        let reference = calendar(zone)
        let days = LocalDay(zone: zone)
        // Every 17 minutes from 2026-03-27 to 2026-03-31 and 2026-10-23 to 2026-10-27.
        for start in [1_774_569_600, 1_792_713_600] {
            for step in stride(from: 0, to: 4 * 86_400, by: 17 * 60) {
                let date = Date(timeIntervalSince1970: TimeInterval(start + step))
                let parts = reference.dateComponents([.year, .month, .day, .hour, .minute], from: date)
                let ours = days.parts(date)
                #expect(
                    [ours.year, ours.month, ours.day, ours.hour, ours.minute]
                        == [parts.year, parts.month, parts.day, parts.hour, parts.minute])
                let midnight = reference.date(byAdding: .day, value: 1, to: reference.startOfDay(for: date))!
                #expect(days.nextMidnight(after: date) == midnight)
            }
        }
        #expect(days.key(Date(timeIntervalSince1970: 1_774_569_600)) == "2026-03-27")
        #expect(days.describe(Date(timeIntervalSince1970: 1_774_569_600)) == "2026-03-27 01:00")
    }

    @Test("the system's zone, read through libc, agrees with Foundation's TimeZone.current")
    func systemZone() {
        let reference = calendar(.current)
        let days = LocalDay(zone: nil)
        for seconds in stride(from: 1_700_000_000, to: 1_800_000_000, by: 2_345_678) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let parts = reference.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            let ours = days.parts(date)
            #expect(
                [ours.year, ours.month, ours.day, ours.hour, ours.minute]
                    == [parts.year, parts.month, parts.day, parts.hour, parts.minute])
            #expect(
                days.nextMidnight(after: date)
                    == reference.date(byAdding: .day, value: 1, to: reference.startOfDay(for: date))!)
        }
    }
}
