import FoundationEssentials

/// What the `allowance` file holds: today's count, the latest time ever seen, and the
/// reservations of conversions in flight.
///
/// On disk it is one line of JSON followed by a line with the hex HMAC-SHA256 of that JSON's
/// exact bytes under the install's 32-byte `secret` (a separate 0600 file). The MAC covers the
/// bytes as written, so no canonical re-encoding is needed to check it.
package struct AllowanceRecord: Codable, Equatable, Sendable {
    /// One conversion (or batch) that reserved a slot and has not yet committed or released it.
    package struct Entry: Codable, Equatable, Sendable {
        /// Random identifier the reservation is committed or released by.
        package var id: String
        /// The process that holds it; when that process is gone the slot is freed.
        var holder: ProcessIdentity
    }

    /// Layout version of this record.
    package var version = 1
    /// The local day (`yyyy-MM-dd`) `used` counts.
    package var day: String
    /// Conversions charged on `day`.
    package var used: Int
    /// The latest clock reading any run saw (seconds since 1970). Time never goes back below
    /// it, so moving the clock back cannot return to a day with allowance left.
    var highWater: Double
    /// The record was found edited or corrupt on `day`: no free conversions until the next day.
    package var damaged: Bool
    /// Reservations in flight; they count against the day like charged conversions.
    var reservations: [Entry]

    /// Whether `other` charges the same: the same day, count and damage, whatever reservations
    /// and high-water mark either has.
    func chargesEqual(_ other: AllowanceRecord) -> Bool {
        version == other.version && day == other.day && used == other.used && damaged == other.damaged
    }

    /// The file contents: JSON line, MAC line.
    func sealed(secret: [UInt8]) throws(ConvertError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json: Data
        do { json = try encoder.encode(self) } catch {
            throw ConvertError.wrapping(error)
        }
        guard let mac = Crypto.hmacSHA256(key: secret, data: Array(json)) else {
            throw ConvertError(.internal, code: .internalError, message: "Could not protect the allowance record.")
        }
        return Array(json) + Array("\n".utf8) + Array(Crypto.hex(mac).utf8) + Array("\n".utf8)
    }

    /// The record in `bytes` if its MAC is right and it decodes; nil for anything else
    /// (truncated, edited, written under another secret, not JSON).
    static func unsealed(_ bytes: [UInt8], secret: [UInt8]) -> AllowanceRecord? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count == 3, lines[2].isEmpty else { return nil }
        let json = Array(lines[0])
        guard let expected = Crypto.hmacSHA256(key: secret, data: json),
            Crypto.constantTimeEqual(Array(Crypto.hex(expected).utf8), Array(lines[1]))
        else { return nil }
        guard let record = try? JSONDecoder().decode(AllowanceRecord.self, from: Data(json)), record.version == 1,
            record.used >= 0, record.highWater.isFinite
        else { return nil }
        return record
    }
}
