import ConvertCore
import FoundationEssentials

/// A second, independent record of the allowance: the highest generation written and what it
/// charged, kept outside the state folder so that putting an older copy of the `allowance` file
/// back (a replay: save it, spend the day, restore it) is found out.
///
/// It lives in a folder of its own beside the state folder (`~/.local/state/.offconvert-witness/`
/// for the default `~/.local/state/offconvert/`), sealed under the same secret. It is written
/// after the record, so a crash between the two leaves the record one generation ahead, which is
/// accepted; a record behind its witness, a witness that does not verify, or a version-2 record
/// without one fails closed for the day, as an edited record does. Removing the state folder
/// while the witness stays is a reset, and fails closed too.
struct AllowanceWitness: Codable, Equatable {
    /// The record's ``AllowanceRecord/generation`` when this was written.
    var generation: Int
    /// The record's day and count then, for the report of a replay.
    var day: String
    var used: Int

    /// The MAC domain: a witness can never pass for a record, nor the other way round.
    fileprivate static let domain = "offconvert-allowance-witness\n"

    init(_ record: AllowanceRecord) {
        generation = record.generation
        day = record.day
        used = record.used
    }

    /// The witness folder of the state folder at `stateDirectory`.
    static func folder(for stateDirectory: String) -> String {
        PathText.join(PathText.parent(stateDirectory), "." + PathText.lastComponent(stateDirectory) + "-witness")
    }

    /// The file contents.
    func sealed(secret: [UInt8]) throws(ConvertError) -> [UInt8] {
        try SealedJSON.seal(self, domain: Self.domain, secret: secret)
    }

    /// The witness in `bytes` if it verifies under `secret`; nil otherwise.
    static func unsealed(_ bytes: [UInt8], secret: [UInt8]) -> AllowanceWitness? {
        guard let witness = SealedJSON.unseal(AllowanceWitness.self, bytes, domain: domain, secret: secret),
            witness.generation >= 0
        else { return nil }
        return witness
    }

    /// Whether `record`, which verified, is the latest one: not behind this witness. `witness`
    /// is nil when there is none; `bytesFound` says whether a file was there at all (one that
    /// does not verify is damage).
    static func accepts(_ record: AllowanceRecord, witness: AllowanceWitness?, bytesFound: Bool) -> Bool {
        guard let witness else {
            // Only a record from before witnesses existed may come without one.
            return !bytesFound && record.version == 1
        }
        return record.generation >= witness.generation
    }
}
