import Foundation
import Testing

@testable import ConvertCore

/// `fixed(_:digits:)` writes what `String(format: "%.Nf")` wrote, byte for byte, on the values
/// where rounding is hardest: binary ties, values just either side of them, and the sizes and
/// times offconvert prints.
@Suite("Fixed-point formatting")
struct FixedDigitsTests {
    static let values: [Double] = [
        0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.25, 1.35, 2.675, 1.005, 0.05, 0.15, 0.25, 0.35, 0.45,
        9.95, 99.95, 999.95, 1.3, 12.345, 59.96, 0.0004999, 0.00049999999999999996, 123_456_789.125,
        1e21, -1.5, -2.5, -0.05, 47.6062, -122.3321, 3.14159265358979, .infinity, -.infinity, .nan,
    ]

    @Test("the same text as String(format:) for 0 to 6 digits")
    func matchesStringFormat() {
        for value in Self.values {
            for digits in 0...6 {
                #expect(
                    fixed(value, digits: digits) == String(format: "%.\(digits)f", value), "\(value), \(digits) digits")
            }
        }
    }

    @Test("the same text as String(format:) for random values")
    func matchesStringFormatRandomly() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = Double.random(in: -2_000...2_000, using: &generator)
            let digits = Int.random(in: 0...6, using: &generator)
            #expect(fixed(value, digits: digits) == String(format: "%.\(digits)f", value), "\(value), \(digits) digits")
        }
    }

    @Test("zero padding as %02d and %04d write it")
    func zeroPaddingMatchesStringFormat() {
        for value in [0, 5, 9, 10, 59, 123, 2026, -5, -123] {
            #expect(zeroPadded(value, width: 2) == String(format: "%02d", value))
            #expect(zeroPadded(value, width: 4) == String(format: "%04d", value))
        }
    }
}
