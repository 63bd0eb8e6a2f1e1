import ConvertCore
import FoundationEssentials

/// What the `allowance` file holds: today's count, the latest time ever seen, the reservations of
/// conversions in flight, the batches charged lately, and a generation that only grows.
///
/// On disk it is sealed (``SealedJSON``) under the install's 32-byte `secret` (a separate 0600
/// file). Version 1 records (no generation, no charged batches) are read and rewritten as
/// version 2.
package struct AllowanceRecord: Codable, Equatable, Sendable {
    /// One conversion (or batch) that reserved a slot and has not yet committed or released it.
    package struct Entry: Codable, Equatable, Sendable {
        /// Random identifier the reservation is committed or released by.
        package var id: String
        /// The process that holds it; when that process is gone the slot is freed.
        var holder: ProcessIdentity
    }

    /// A batch that was charged: finishing it later (after a kill or Ctrl-C) is free.
    package struct ChargedBatch: Codable, Equatable, Sendable {
        /// The batch's key (its journal's name and how often it completed before).
        package var key: String
        /// The local day it was charged on; kept for ``AllowanceRecord/chargedRetentionDays``.
        package var day: String
    }

    /// The layout version written.
    package static let currentVersion = 2
    /// How many days a charged batch is remembered: as long as its resume journal is kept.
    static let chargedRetentionDays = 31

    /// Layout version of this record.
    package var version = AllowanceRecord.currentVersion
    /// Grows by one with every change to what is charged. The witness beside the state folder
    /// keeps the highest generation written, so an older copy of this file put back is found out.
    package var generation = 0
    /// The local day (`yyyy-MM-dd`) `used` counts.
    package var day: String
    /// Conversions charged on `day`.
    package var used: Int
    /// When `day` ends (seconds since 1970): fixed when the day began, as the next local
    /// midnight then, and kept whatever the time zone says afterwards (see
    /// ``AllowanceStore``). Nil in a record written before it was kept.
    package var dayEnds: Double?
    /// The latest clock reading any run saw (seconds since 1970). Time never goes back below
    /// it, so moving the clock back cannot return to a day with allowance left.
    var highWater: Double
    /// The record was found edited, replayed or corrupt on `day`: no free conversions until the
    /// next day.
    package var damaged: Bool
    /// Reservations in flight; they count against the day like charged conversions.
    var reservations: [Entry]
    /// Batches charged in the last ``chargedRetentionDays`` days.
    package var charged: [ChargedBatch] = []

    init(day: String, used: Int, highWater: Double, damaged: Bool, reservations: [Entry]) {
        self.day = day
        self.used = used
        self.highWater = highWater
        self.damaged = damaged
        self.reservations = reservations
    }

    private enum CodingKeys: String, CodingKey {
        case version, generation, day, used, dayEnds, highWater, damaged, reservations, charged
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        generation = try container.decodeIfPresent(Int.self, forKey: .generation) ?? 0
        day = try container.decode(String.self, forKey: .day)
        used = try container.decode(Int.self, forKey: .used)
        dayEnds = try container.decodeIfPresent(Double.self, forKey: .dayEnds)
        highWater = try container.decode(Double.self, forKey: .highWater)
        damaged = try container.decode(Bool.self, forKey: .damaged)
        reservations = try container.decode([Entry].self, forKey: .reservations)
        charged = try container.decodeIfPresent([ChargedBatch].self, forKey: .charged) ?? []
    }

    /// Whether `other` charges the same: the same day and end, count, damage and charged
    /// batches, whatever reservations and high-water mark either has.
    func chargesEqual(_ other: AllowanceRecord) -> Bool {
        version == other.version && day == other.day && dayEnds == other.dayEnds && used == other.used
            && damaged == other.damaged && charged == other.charged
    }

    /// The file contents: JSON line, MAC line.
    func sealed(secret: [UInt8]) throws(ConvertError) -> [UInt8] {
        try SealedJSON.seal(self, domain: "", secret: secret)
    }

    /// The record in `bytes` if its MAC is right, it decodes and its values make sense; nil for
    /// anything else (truncated, edited, written under another secret, not JSON).
    static func unsealed(_ bytes: [UInt8], secret: [UInt8]) -> AllowanceRecord? {
        guard let record = SealedJSON.unseal(AllowanceRecord.self, bytes, domain: "", secret: secret),
            (1...currentVersion).contains(record.version), record.used >= 0, record.generation >= 0,
            record.highWater.isFinite, record.dayEnds?.isFinite ?? true
        else { return nil }
        return record
    }
}
