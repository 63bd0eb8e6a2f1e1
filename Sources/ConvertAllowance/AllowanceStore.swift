import ConvertCore
import FoundationEssentials
import Glibc
import Synchronization

/// The free-tier allowance: three conversions a day, charged only once an output is in place.
///
/// The state lives in a private folder (`$XDG_STATE_HOME/offconvert/`, default
/// `~/.local/state/offconvert/`, mode 0700, files 0600) that survives reinstalling or
/// rebuilding offconvert. Every operation takes an exclusive `flock` on the folder's `lock`
/// file, reads the record, updates it and replaces it atomically (temp file, fsync, rename,
/// fsync of the folder), so concurrent processes are serialised and a crash at any point leaves
/// either the old or the new record.
///
/// Charging is two-phase: ``reserve()`` takes a slot before any work (and fails early with an
/// `.allowance` error when none is left), ``AllowanceReservation/commit()`` charges it once an
/// output is in place, ``AllowanceReservation/release()`` gives it back on failure or
/// cancellation. A slot reserved by a process that has since died is freed by the next
/// operation, never charged.
///
/// ## What it resists
/// - Editing the record: it carries an HMAC-SHA256 under a per-install random secret; an edited,
///   truncated or deleted record fails closed: no free conversions until the next local day.
/// - Moving the clock back: the latest time ever seen is kept; time never goes below it.
/// - Changing the time zone (`TZ`): a day's end is fixed when the day begins, as the next
///   local midnight then, and stored in the sealed record. Until that instant the day goes on
///   whatever zone later runs are in, so a zone already in tomorrow (UTC+14) gives nothing
///   early, and every run reports the same reset instant. The zone counts only when a new day
///   begins, and that day lasts until the first local midnight at least
///   ``minimumDayLength`` after the previous day's end: a traveller's days follow their new
///   zone, but no choice of zones makes a day shorter than that, and what moving the boundary
///   west gains is bounded by how far the zones reach (26 hours), however often it is repeated.
/// - Races: ten processes starting at once with one slot left get exactly one slot.
///
/// ## What it does not resist
/// It is an offline, file-based meter, not DRM. Someone who deletes the whole state folder
/// (record and secret) starts as a new install; someone who moves the clock forward gets the
/// next day early, at the cost of those future days; someone who reads the secret (it is
/// their own file) can forge a record; and a modified binary ignores it all.
public final class AllowanceStore: Sendable {
    /// Free conversions per local day.
    public static let defaultDailyLimit = 3

    /// The shortest a day can be, measured from the previous day's end: a day that begins in
    /// a zone further west than the last one (where midnight is only an hour away, say) still
    /// lasts this long (22 hours leave room for the 23-hour day of a daylight-saving change).
    static let minimumDayLength: TimeInterval = 22 * 3_600

    /// The state folder.
    public let directory: String
    /// Free conversions per local day.
    public let dailyLimit: Int
    private let clock: @Sendable () -> Date
    private let days: LocalDay
    private let licenseKey: LicensePublicKey

    /// Creates a store.
    /// - Parameters:
    ///   - directory: The state folder; nil for the default derived from `environment`
    ///     (`$XDG_STATE_HOME/offconvert`, else `$HOME/.local/state/offconvert`).
    ///   - environment: Where the default folder is looked up.
    ///   - clock: The current time; tests inject one to cross midnight or move time back.
    ///   - timeZone: The zone whose midnight starts a new day; nil (the default) for the system's.
    ///   - licenseKey: The key licences must be signed with; the built-in vendor key by default.
    ///   - dailyLimit: Free conversions per day.
    public init(
        directory: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone? = nil,
        licenseKey: LicensePublicKey = .builtIn, dailyLimit: Int = AllowanceStore.defaultDailyLimit
    ) {
        precondition(dailyLimit >= 0, "a daily limit cannot be negative")
        self.directory = directory ?? StateDirectory.defaultPath(environment: environment)
        self.clock = clock
        self.days = LocalDay(zone: timeZone)
        self.licenseKey = licenseKey
        self.dailyLimit = dailyLimit
    }

    /// The allowance now. Also frees slots of dead processes and rolls the day over.
    ///
    /// A read makes no install: before anything was reserved or unlocked, it answers a fresh
    /// day's allowance and creates neither the state folder nor its secret.
    public func status() throws(ConvertError) -> Allowance {
        if isNewInstall() {
            return Allowance(
                dailyLimit: dailyLimit, used: 0, reserved: 0, remaining: dailyLimit,
                resetsAt: nextMidnight(after: clock()),
                license: nil, licenseProblem: nil, isDamaged: false)
        }
        return try transaction { state throws(ConvertError) in state.snapshot(limit: dailyLimit) }
    }

    /// Whether no trace of an install exists: no secret, record, licence or lock file in the
    /// state folder (or no folder) and no witness of an earlier record. Anything else, including a path that
    /// cannot be looked at, goes through ``transaction(_:)``, which reports or repairs it.
    private func isNewInstall() -> Bool {
        let paths =
            ["secret", "allowance", "license", "lock"].map { PathText.join(directory, $0) }
            + [PathText.join(AllowanceWitness.folder(for: directory), "allowance")]
        return paths.allSatisfy { path in
            var info = stat()
            return lstat(path, &info) != 0 && errno == ENOENT
        }
    }

    /// Reserves one conversion (a whole batch is one) before any work starts.
    ///
    /// Throws `.allowance` `allowance.exhausted` when today's conversions are used or reserved,
    /// and `allowance.damaged` when the store was found edited or corrupt today; both messages
    /// say when the allowance resets and how to remove the limit. On an unlocked install the
    /// reservation is unlimited and charges nothing.
    public func reserve() throws(ConvertError) -> AllowanceReservation {
        // The transaction returns only the slot's id: a reservation object must not be created
        // (and possibly deinitialised, which releases through the lock) while the lock is held.
        let id = try transaction { state throws(ConvertError) -> String? in
            if state.license != nil { return nil }
            // Only a refusal needs the reset time written out.
            let resetsAt = state.resetsAt
            func more() -> String {
                // The instant the day ends, shown in the zone of this run: after a change of zone
                // it is midnight where the day began, not here.
                "Free conversions start again at \(days.describe(resetsAt)) local time, "
                    + "or remove the limit with a licence."
            }
            if state.record.damaged {
                throw ConvertError(
                    code: .allowanceDamaged,
                    message: "The allowance record in \(directory) was edited, truncated or removed, "
                        + "so there are no free conversions today. " + more())
            }
            guard state.record.used + state.record.reservations.count < dailyLimit else {
                throw ConvertError(
                    code: .allowanceExhausted,
                    message: "Today's \(dailyLimit) free conversions are used. " + more())
            }
            let id = UUID().uuidString
            state.record.reservations.append(.init(id: id, holder: .current))
            return id
        }
        return AllowanceReservation(store: self, id: id)
    }

    /// Verifies the licence in `licenseFile` and, if it is valid, stores a copy that unlocks
    /// this install. Throws `.allowance` errors keyed `license.malformed`, `license.invalid`
    /// or `license.expired`, or a file-system error if the file cannot be read.
    @discardableResult
    public func unlock(licenseFile: String) throws(ConvertError) -> License {
        let bytes = try Self.readLicense(licenseFile)
        return try transaction { state throws(ConvertError) in
            let license = try License.verify(bytes, key: licenseKey, now: state.now, path: licenseFile)
            try state.directory.write("license", bytes)
            state.license = license
            state.licenseProblem = nil
            return license
        }
    }

    /// Runs `body` (one command over one or many files) under one reserved conversion.
    ///
    /// Reserves first, so an exhausted allowance stops the command before any work. `body`
    /// calls ``AllowanceReservation/outputPlaced()`` each time an output is moved into place;
    /// the first call charges the reservation (even if `body` then throws or is cancelled: the
    /// user has that file). If no output was placed the reservation is released afterwards, so
    /// a command that failed or was cancelled before placing anything costs nothing. The store's
    /// lock is held only for the short reserve and commit updates, not while `body` runs.
    ///
    /// The reserve and the final settling wait for the lock and for the disk (two fsyncs), so
    /// they run on a thread of their own, never on Swift's cooperative pool: many jobs reserving
    /// at once would otherwise hold every pool thread and stall all other tasks of the process.
    ///
    /// - Throws: `allowance.exhausted` or `allowance.damaged` before `body` runs when no
    ///   conversion is left; a file-system error when the state cannot be written; what `body`
    ///   throws, as a ``ConvertError``: a ``ConvertError`` as it is, Swift cancellation as
    ///   `cancelled`, any other error as `internal` (its text in
    ///   ``ConvertError/underlyingDescription``).
    public func withAllowance<T>(
        _ body: (AllowanceReservation) async throws -> T
    ) async throws(ConvertError) -> T {
        let reservation = try await runBlocking(on: .short) { _ in try self.reserve() }
        do {
            let value = try await body(reservation)
            try await runBlocking(on: .short) { _ in try reservation.finish() }
            return value
        } catch {
            try await runBlocking(on: .short) { _ in try reservation.finish() }
            throw ConvertError.wrapping(error)
        }
    }

    // MARK: - Internals

    /// The state loaded under the lock.
    package struct State {
        package let directory: StateDirectory
        package var record: AllowanceRecord
        /// The effective time: the clock, never below the high-water mark.
        package let now: Date
        package let resetsAt: Date
        package var license: License?
        package var licenseProblem: String?

        package func snapshot(limit: Int) -> Allowance {
            let left = max(0, limit - record.used - record.reservations.count)
            return Allowance(
                dailyLimit: limit, used: record.used, reserved: record.reservations.count,
                remaining: license == nil ? (record.damaged ? 0 : left) : nil, resetsAt: resetsAt, license: license,
                licenseProblem: licenseProblem, isDamaged: record.damaged)
        }
    }

    /// Locks the folder, loads and normalises the record, runs `body`, and writes the record
    /// (and its witness) back if it changed. A `readOnly` transaction writes nothing: what it
    /// normalised (the clock's high-water mark, a new day, dead processes' slots) is written by
    /// the next transaction that changes something, which normalises it again.
    fileprivate func transaction<T>(
        readOnly: Bool = false, _ body: (inout State) throws(ConvertError) -> T
    ) throws(ConvertError) -> T {
        let folder = try StateDirectory(path: directory)
        return try folder.withLock { () throws(ConvertError) -> T in
            folder.removeStaleTemporaries()
            let witnessFolder = try StateDirectory(path: AllowanceWitness.folder(for: directory))
            witnessFolder.removeStaleTemporaries()
            let loaded = try load(folder, witnessFolder: witnessFolder)
            var record = loaded.record
            let now = max(clock(), Date(timeIntervalSince1970: record.highWater))
            normalise(&record, now: now)
            let (license, licenseProblem) = try self.license(in: folder, now: now)
            let resetsAt = record.dayEnds.map { Date(timeIntervalSince1970: $0) } ?? nextMidnight(after: now)
            var state = State(
                directory: folder, record: record, now: now, resetsAt: resetsAt, license: license,
                licenseProblem: licenseProblem)
            let result = try body(&state)
            if !readOnly { try save(state.record, loaded: loaded, folder: folder, witnessFolder: witnessFolder) }
            return result
        }
    }

    /// What ``load(_:witnessFolder:)`` found.
    private struct Loaded {
        var secret: [UInt8]
        /// The secret is new and must be written.
        var newSecret: Bool
        /// The record as stored, when it verified and its witness accepts it.
        var original: AllowanceRecord?
        /// The record to work on: the original, or a fresh or damaged one.
        var record: AllowanceRecord
        var witness: AllowanceWitness?
    }

    /// Reads the secret, the record and its witness. A record that is missing next to an existing
    /// secret, that does not verify, or that its witness shows to be an older copy put back, was
    /// deleted, edited or replayed: today fails closed. Only a folder with neither file, and no
    /// witness of an earlier install, is a new install.
    private func load(_ folder: StateDirectory, witnessFolder: StateDirectory) throws(ConvertError) -> Loaded {
        var secret = try folder.read("secret") ?? []
        let stored = try folder.read("allowance")
        let witnessBytes = try witnessFolder.read("allowance")
        let newSecret = secret.count != 32
        if newSecret {
            var generator = SystemRandomNumberGenerator()
            secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        let witness = newSecret ? nil : witnessBytes.flatMap { AllowanceWitness.unsealed($0, secret: secret) }
        let verified = newSecret ? nil : stored.flatMap { AllowanceRecord.unsealed($0, secret: secret) }
        let accepted = verified.flatMap {
            AllowanceWitness.accepts($0, witness: witness, bytesFound: witnessBytes != nil) ? $0 : nil
        }
        if let accepted {
            return Loaded(secret: secret, newSecret: newSecret, original: accepted, record: accepted, witness: witness)
        }
        let freshInstall = stored == nil && newSecret && witnessBytes == nil
        let now = clock()
        var record = AllowanceRecord(
            day: dayKey(now), used: freshInstall ? 0 : dailyLimit, highWater: now.timeIntervalSince1970,
            damaged: !freshInstall, reservations: [])
        // The replayed record's batches were charged: finishing one stays free.
        record.charged = verified?.charged ?? []
        record.generation = max(verified?.generation ?? 0, witness?.generation ?? 0)
        return Loaded(secret: secret, newSecret: newSecret, original: nil, record: record, witness: witness)
    }

    /// Moves `record` to `now`: time never below the high-water mark, a new day (once the
    /// stored day has ended) resets the count and the damage, dead processes' reservations are
    /// freed, old charged batches forgotten.
    private func normalise(_ record: inout AllowanceRecord, now: Date) {
        record.version = AllowanceRecord.currentVersion
        record.highWater = now.timeIntervalSince1970
        if let ends = record.dayEnds {
            if now.timeIntervalSince1970 >= ends { beginDay(&record, now: now, previousEnd: ends) }
        } else if dayKey(now) > record.day {
            // A record from before day ends were stored, whose day is over.
            beginDay(&record, now: now, previousEnd: nil)
        } else {
            record.dayEnds = nextMidnight(after: now).timeIntervalSince1970
        }
        record.reservations.removeAll { !$0.holder.isRunning }
        let oldest = dayKey(now.addingTimeInterval(-Double(AllowanceRecord.chargedRetentionDays) * 86_400))
        record.charged.removeAll { $0.day < oldest }
    }

    /// Starts a new day at `now`, after the day that ended at `previousEnd`: the count and the
    /// damage cleared, the end fixed at the first local midnight after now and at least
    /// ``minimumDayLength`` after the previous end.
    private func beginDay(_ record: inout AllowanceRecord, now: Date, previousEnd: Double?) {
        // Keys are yyyy-MM-dd, so string order is date order. A day that begins in a zone further
        // west may still have the old date there: its key is the next date all the same, so the
        // charges of the day before are never taken for today's (``refund(batch:)``).
        let following = LocalDay.key(after: record.day) ?? record.day
        record.day = max(dayKey(now), following)
        record.used = 0
        record.damaged = false
        let earliest = previousEnd.map { max(now, Date(timeIntervalSince1970: $0 + Self.minimumDayLength)) } ?? now
        record.dayEnds = nextMidnight(after: earliest).timeIntervalSince1970
    }

    /// The stored licence and whether it applies now.
    private func license(in folder: StateDirectory, now: Date) throws(ConvertError) -> (License?, String?) {
        guard let bytes = try folder.read("license") else { return (nil, nil) }
        do throws(ConvertError) { return (try License.verify(bytes, key: licenseKey, now: now, path: nil), nil) } catch
        {
            return (nil, error.message)
        }
    }

    /// Writes what changed: the secret, the record, then its witness.
    private func save(
        _ updated: AllowanceRecord, loaded: Loaded, folder: StateDirectory, witnessFolder: StateDirectory
    ) throws(ConvertError) {
        if loaded.newSecret { try folder.write("secret", loaded.secret) }
        var record = updated
        // Only a change to what is charged must survive a power cut, and only that moves the
        // generation on. A reservation or the clock's high-water mark alone may be lost with the
        // previous record coming back: a lost reservation frees itself anyway. That saves a
        // folder fsync on every reservation and every release of one.
        let durable = loaded.newSecret || loaded.original.map { !$0.chargesEqual(record) } ?? true
        if durable { record.generation = max(record.generation, loaded.witness?.generation ?? 0) + 1 }
        if loaded.newSecret || record != loaded.original {
            try folder.write("allowance", record.sealed(secret: loaded.secret), durable: durable)
        }
        let witness = AllowanceWitness(record)
        if witness != loaded.witness {
            try witnessFolder.write("allowance", witness.sealed(secret: loaded.secret))
        }
    }

    fileprivate func dayKey(_ date: Date) -> String {
        days.key(date)
    }

    private func nextMidnight(after date: Date) -> Date {
        days.nextMidnight(after: date)
    }

    private static func readLicense(_ path: String) throws(ConvertError) -> [UInt8] {
        // The licence to install is a path the user typed: a link to it is theirs to make.
        guard let bytes = try StateDirectory.readFile(path, limit: License.maximumSize, followLinks: true) else {
            throw ConvertError.fileSystem(ENOENT, action: "read the licence", path: path)
        }
        guard bytes.count <= License.maximumSize else {
            throw ConvertError(
                code: .licenseMalformed, message: "\(path) is not an offconvert licence file (too large).",
                path: path)
        }
        return bytes
    }

    /// Charges reservation `id`; with `batch`, remembers the batch as charged (see
    /// ``hasCharged(batch:)``).
    package func commit(_ id: String, batch: String? = nil) throws(ConvertError) {
        try transaction { state throws(ConvertError) in
            if let index = state.record.reservations.firstIndex(where: { $0.id == id }) {
                state.record.reservations.remove(at: index)
                state.record.used += 1
            } else if !state.record.damaged {
                // The slot vanished (the day was found damaged, or the record restored from a
                // backup); the output exists, so charge it anyway, within the day's limit.
                state.record.used = min(dailyLimit, state.record.used + 1)
            }
            if let batch, !state.record.charged.contains(where: { $0.key == batch }) {
                state.record.charged.append(.init(key: batch, day: state.record.day))
            }
        }
    }

    /// Gives back the charge of `batch` taken today, when the output it was taken for could not
    /// be placed after all.
    package func refund(batch: String) throws(ConvertError) {
        try transaction { state throws(ConvertError) in
            guard let index = state.record.charged.firstIndex(where: { $0.key == batch && $0.day == state.record.day })
            else { return }
            state.record.charged.remove(at: index)
            if !state.record.damaged { state.record.used = max(0, state.record.used - 1) }
        }
    }

    /// Whether `batch` was charged in the last month: finishing it after an interruption is
    /// the same conversion, and free. Only reads: every command asks before it reserves, and a
    /// question must not cost a disk sync (the record it would rewrite differs only by the
    /// clock's high-water mark, which the reservation writes a moment later anyway).
    package func hasCharged(batch: String) throws(ConvertError) -> Bool {
        try transaction(readOnly: true) { state throws(ConvertError) in
            state.record.charged.contains { $0.key == batch }
        }
    }

    package func release(_ id: String) throws(ConvertError) {
        try transaction { state throws(ConvertError) in
            state.record.reservations.removeAll { $0.id == id }
        }
    }
}
