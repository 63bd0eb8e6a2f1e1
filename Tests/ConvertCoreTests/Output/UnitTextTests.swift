import Testing

@testable import ConvertCore

/// Sizes and lengths of time read the same in every message (one formatter, one spelling).
@Suite("UnitText")
struct UnitTextTests {
    @Test(
        "byte counts in SI units",
        arguments: [
            (Int64(0), "0 B"), (999, "999 B"), (1_000, "1.0 kB"), (12_345, "12.3 kB"), (999_949, "999.9 kB"),
            (12_345_678, "12.3 MB"), (2_500_000_000, "2.50 GB"),
        ])
    func bytes(count: Int64, text: String) {
        #expect(UnitText.bytes(count) == text)
    }

    @Test(
        "lengths of time: seconds below a minute, clock time above",
        arguments: [
            (0.0, 1, "0 s"), (4.0, 1, "4 s"), (4.54, 1, "4.5 s"), (0.1067, 2, "0.11 s"), (59.96, 1, "1:00"),
            (125.0, 1, "2:05"), (3723.0, 0, "1:02:03"), (12.4, 0, "12 s"),
        ])
    func durations(seconds: Double, places: Int, text: String) {
        #expect(UnitText.duration(seconds, places: places) == text)
    }

    @Test("an unknown length reads as a question mark")
    func unknown() {
        #expect(UnitText.duration(.infinity) == "?")
        #expect(UnitText.duration(-1) == "?")
        #expect(UnitText.duration(.nan) == "?")
    }

    @Test("decimals drop trailing zeros")
    func decimals() {
        #expect(UnitText.decimal(4.0, 2) == "4")
        #expect(UnitText.decimal(0.125) == "0.125")
        #expect(UnitText.decimal(29.970, 3) == "29.97")
    }
}
