import FoundationEssentials
import Glibc
import Synchronization

/// What the allowance looks like right now.
public struct Allowance: Sendable, Equatable {
    /// Free conversions per local day.
    public var dailyLimit: Int
    /// Conversions (a batch counts as one) charged today.
    public var used: Int
    /// Conversions in flight that reserved a slot but have not finished.
    public var reserved: Int
    /// Free conversions still available today (`dailyLimit - used - reserved`, never negative);
    /// nil when the install is unlocked and there is no limit.
    public var remaining: Int?
    /// When today's count resets: the next local midnight.
    public var resetsAt: Date
    /// The licence that unlocks this install, when there is a valid one.
    public var license: License?
    /// Why a stored licence does not apply (expired, altered), when there is one that does not.
    public var licenseProblem: String?
    /// The store was found edited, truncated or missing today, so no free conversions are left
    /// until ``resetsAt``.
    public var isDamaged: Bool

    /// Whether a valid licence removes the limit.
    public var isUnlocked: Bool { license != nil }
}

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
/// - Races: ten processes starting at once with one slot left get exactly one slot.
///
/// ## What it does not resist
/// It is an offline, file-based meter, not DRM. Someone who deletes the whole state folder
/// (record and secret) starts as a new install; someone who moves the clock (or time zone)
/// forward gets the next day early, at the cost of those future days; someone who reads the
/// secret (it is their own file) can forge a record; and a modified binary ignores it all.
public final class AllowanceStore: Sendable {
    /// Free conversions per local day.
    public static let defaultDailyLimit = 3

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
    public func status() throws(ConvertError) -> Allowance {
        try transaction { state throws(ConvertError) in state.snapshot(limit: dailyLimit) }
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
                "Free conversions start again at local midnight (\(days.describe(resetsAt))), "
                    + "or remove the limit with 'offconvert unlock LICENSE-FILE'."
            }
            if state.record.damaged {
                throw ConvertError(
                    .allowance, code: .allowanceDamaged,
                    message: "The allowance record in \(directory) was edited, truncated or removed, "
                        + "so there are no free conversions today. " + more())
            }
            guard state.record.used + state.record.reservations.count < dailyLimit else {
                throw ConvertError(
                    .allowance, code: .allowanceExhausted,
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
    public func withAllowance<T>(_ body: (AllowanceReservation) async throws -> T) async throws -> T {
        let reservation = try await runBlocking { _ in try self.reserve() }
        do {
            let value = try await body(reservation)
            try await runBlocking { _ in try reservation.finish() }
            return value
        } catch {
            try await runBlocking { _ in try reservation.finish() }
            throw error
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
    /// back if it changed.
    fileprivate func transaction<T>(_ body: (inout State) throws(ConvertError) -> T) throws(ConvertError) -> T {
        let folder = try StateDirectory(path: directory)
        return try folder.withLock { () throws(ConvertError) -> T in
            folder.removeStaleTemporaries()
            var secret = try folder.read("secret")
            let stored = try folder.read("allowance")
            var writeSecret = false
            if secret?.count != 32 {
                var generator = SystemRandomNumberGenerator()
                secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                writeSecret = true
            }
            let key = secret ?? []
            let clockNow = clock()
            var loaded: AllowanceRecord?
            if let stored, !writeSecret { loaded = AllowanceRecord.unsealed(stored, secret: key) }
            let freshInstall = stored == nil && writeSecret
            let original = loaded
            var record: AllowanceRecord
            if let loaded {
                record = loaded
            } else {
                // A record that is missing next to an existing secret, or that does not verify,
                // was deleted, truncated or edited: fail closed for today. Only a folder with
                // neither file is a new install.
                record = AllowanceRecord(
                    day: dayKey(clockNow), used: freshInstall ? 0 : dailyLimit,
                    highWater: clockNow.timeIntervalSince1970, damaged: !freshInstall, reservations: [])
            }
            let now = max(clockNow, Date(timeIntervalSince1970: record.highWater))
            record.highWater = now.timeIntervalSince1970
            let today = dayKey(now)
            // Keys are yyyy-MM-dd, so string order is date order; a time-zone change that makes
            // "today" earlier than the stored day never rolls back.
            if today > record.day {
                record.day = today
                record.used = 0
                record.damaged = false
            }
            record.reservations.removeAll { !$0.holder.isRunning }

            var license: License?
            var licenseProblem: String?
            if let bytes = try folder.read("license") {
                do throws(ConvertError) { license = try License.verify(bytes, key: licenseKey, now: now, path: nil) } catch {
                    licenseProblem = error.message
                }
            }
            var state = State(
                directory: folder, record: record, now: now, resetsAt: nextMidnight(after: now), license: license,
                licenseProblem: licenseProblem)
            let result = try body(&state)
            if writeSecret { try folder.write("secret", key) }
            if writeSecret || state.record != original {
                // Only a change to what is charged must survive a power cut. A reservation or the
                // clock's high-water mark alone may be lost with the previous record coming back:
                // a lost reservation frees itself anyway. That saves a folder fsync on every
                // reservation and every release of one.
                let durable = writeSecret || original.map { !$0.chargesEqual(state.record) } ?? true
                try folder.write("allowance", state.record.sealed(secret: key), durable: durable)
            }
            return result
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
                .allowance, code: .licenseMalformed, message: "\(path) is not an offconvert licence file (too large).",
                path: path)
        }
        return bytes
    }

    package func commit(_ id: String) throws(ConvertError) {
        try transaction { state throws(ConvertError) in
            if let index = state.record.reservations.firstIndex(where: { $0.id == id }) {
                state.record.reservations.remove(at: index)
                state.record.used += 1
            } else if !state.record.damaged {
                // The slot vanished (the day was found damaged, or the record restored from a
                // backup); the output exists, so charge it anyway, within the day's limit.
                state.record.used = min(dailyLimit, state.record.used + 1)
            }
        }
    }

    package func release(_ id: String) throws(ConvertError) {
        try transaction { state throws(ConvertError) in
            state.record.reservations.removeAll { $0.id == id }
        }
    }
}

/// One reserved conversion: commit it once an output is in place, release it otherwise.
///
/// A reservation that is neither committed nor released is released when it is deinitialised;
/// if the process dies first, the next run frees it.
public final class AllowanceReservation: Sendable {
    private enum Phase { case open, committed, released }

    private let store: AllowanceStore
    /// The slot's id; nil on an unlocked install, where nothing is counted.
    private let id: String?
    private let phase = Mutex(Phase.open)
    private let placed = Atomic<Bool>(false)

    package init(store: AllowanceStore, id: String?) {
        self.store = store
        self.id = id
    }

    deinit {
        // Releasing takes the store's lock and syncs the disk: never on the thread that happened
        // to drop the last reference, which may be one of the cooperative pool's. If the process
        // ends first, the lost reservation expires by itself.
        if phase.withLock({ $0 == .open }), let id {
            let store = store
            BlockingExecutor.shared.submit { try? store.release(id) }
        }
    }

    /// Whether this reservation is on an unlocked install and charges nothing.
    public var isUnlimited: Bool { id == nil }

    /// Records that an output was moved into place and charges the reservation right away (the
    /// first time), so killing the process after outputs are in place does not make them free.
    /// If that charge cannot be written now, ``AllowanceStore/withAllowance(_:)`` retries it at
    /// the end. Safe to call from concurrent batch items. The first call returns once the charge
    /// is on disk (one locked, fsynced update, made on a thread of its own so that many jobs
    /// charging at once never hold the cooperative pool); later calls return at once.
    public func outputPlaced() async {
        guard !placed.exchange(true, ordering: .relaxed) else { return }
        _ = try? await runBlocking { _ in try self.commit() }
    }

    /// Charges the reservation. Call once the output is in place. A second call does nothing.
    public func commit() throws(ConvertError) {
        guard transition(to: .committed), let id else { return }
        do { try store.commit(id) } catch {
            phase.withLock { $0 = .open }
            throw error
        }
    }

    /// Gives the slot back without charging (failure, cancellation). A second call, or a call
    /// after ``commit()``, does nothing.
    public func release() throws(ConvertError) {
        guard transition(to: .released), let id else { return }
        try store.release(id)
    }

    /// Commits if an output was placed (unless that already happened), releases otherwise.
    package func finish() throws(ConvertError) {
        if placed.load(ordering: .relaxed) { try commit() } else { try release() }
    }

    /// Moves from open to `next`; false if the reservation was already settled. A commit whose
    /// write failed returns to open so it can be retried.
    private func transition(to next: Phase) -> Bool {
        phase.withLock { phase in
            guard phase == .open else { return false }
            phase = next
            return true
        }
    }
}
