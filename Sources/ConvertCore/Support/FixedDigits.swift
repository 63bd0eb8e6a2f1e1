import FoundationEssentials
import Glibc

/// `value` with exactly `digits` decimals, as `String(format: "%.<digits>f", value)` writes it:
/// formatted by the C library's `printf`, so it rounds the same way (the exact binary value,
/// ties to even) and spells infinities and NaN the same ("inf", "nan").
///
/// The one replacement for `String(format:)` with `%f`, which needs full Foundation.
package func fixed(_ value: Double, digits: Int) -> String {
    let format = "%.\(max(0, digits))f"
    let length = withVaList([value]) { vsnprintf(nil, 0, format, $0) }
    guard length > 0 else { return "" }
    var buffer = [CChar](repeating: 0, count: Int(length) + 1)
    _ = buffer.withUnsafeMutableBufferPointer { bytes in
        withVaList([value]) { vsnprintf(bytes.baseAddress, bytes.count, format, $0) }
    }
    return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `value` in decimal, padded on the left with zeros to at least `width` digits, as `%02d`
/// writes it ("05", "123"; a minus sign, if any, comes first: "-05").
package func zeroPadded(_ value: Int, width: Int) -> String {
    let digits = String(value.magnitude)
    let padding = String(repeating: "0", count: max(0, width - digits.count - (value < 0 ? 1 : 0)))
    return (value < 0 ? "-" : "") + padding + digits
}
