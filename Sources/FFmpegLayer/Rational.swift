internal import CFFmpeg

/// A fraction as FFmpeg's `AVRational` holds it: time bases (seconds per tick), frame rates,
/// sample aspect ratios. A value; the owner types convert at their boundary.
package struct Rational: Hashable, Sendable, CustomStringConvertible {
    package var numerator: Int32
    var denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Whether both terms are positive (an unknown rate or aspect is 0/0 or 0/1 in FFmpeg).
    package var isPositive: Bool { numerator > 0 && denominator > 0 }

    /// The value as a double; 0 for a zero denominator.
    package var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// The reciprocal (a frame rate's frame duration).
    package var inverted: Rational { Rational(denominator, numerator) }

    /// FFmpeg's microsecond time base (`AV_TIME_BASE_Q`), the unit of container times.
    package static let microseconds = Rational(1, Int32(AV_TIME_BASE))

    /// `value` ticks of `self` in ticks of `target`, rounded to nearest (`av_rescale_q`).
    package func rescale(_ value: Int64, to target: Rational) -> Int64 {
        av_rescale_q(value, av, target.av)
    }

    package var description: String { "\(numerator)/\(denominator)" }

    init(_ value: AVRational) { self.init(value.num, value.den) }
    var av: AVRational { AVRational(num: numerator, den: denominator) }
}
