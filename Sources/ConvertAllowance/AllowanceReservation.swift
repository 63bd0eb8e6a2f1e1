import ConvertCore
import Synchronization

/// One reserved conversion: commit it once an output is in place, release it otherwise.
///
/// A reservation that is neither committed nor released is released when it is deinitialised;
/// if the process dies first, the next run frees it.
public final class AllowanceReservation: Sendable {
    private enum Phase: Equatable {
        case open
        /// Charged; `refundable` names the batch when the charge was taken before an output was
        /// placed (``chargeBeforePlacing(batch:)``), so it can be given back if none was.
        case committed(refundable: String?)
        case released
    }

    private let store: AllowanceStore
    /// The slot's id; nil on an unlocked install, where nothing is counted.
    private let id: String?
    private let phase = PthreadLocked(Phase.open)
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
            BlockingExecutor.short.submit { try? store.release(id) }
        }
    }

    /// Whether this reservation is on an unlocked install and charges nothing.
    public var isUnlimited: Bool { id == nil }

    /// Records that an output was moved into place and charges the reservation right away (the
    /// first time), so killing the process after outputs are in place does not make them free.
    /// If that charge cannot be written now, ``AllowanceStore/withAllowance(_:)`` retries it at
    /// the end. Safe to call from concurrent batch items. The first call returns once the charge
    /// is on disk (one locked, fsynced update, made on the short blocking lane so that many jobs
    /// charging at once never hold the cooperative pool); later calls return at once.
    public func outputPlaced() async {
        guard !placed.exchange(true, ordering: .relaxed) else { return }
        _ = try? await runBlocking(on: .short) { _ in try self.commit() }
    }

    /// Charges the reservation. Call once the output is in place. A second call does nothing.
    public func commit() throws(ConvertError) {
        try charge(batch: nil, refundable: false)
    }

    /// Charges the reservation for `batch` before an output is moved into place, and remembers
    /// the batch as charged so that finishing it after an interruption is free. Concurrent
    /// callers wait until the first one's charge is on disk, so no output becomes visible
    /// uncharged. If no output is then placed (``outputMoved()`` never called), ``finish()``
    /// gives the charge back. Blocks: call it from a thread that may wait for the disk.
    package func chargeBeforePlacing(batch: String) throws(ConvertError) {
        try charge(batch: batch, refundable: true)
    }

    /// Records that an output charged by ``chargeBeforePlacing(batch:)`` is in place.
    package func outputMoved() {
        placed.store(true, ordering: .relaxed)
    }

    /// Gives the slot back without charging (failure, cancellation). A second call, or a call
    /// after ``commit()``, does nothing.
    public func release() throws(ConvertError) {
        let wasOpen = phase.withLock { phase in
            guard phase == .open else { return false }
            phase = .released
            return true
        }
        guard wasOpen, let id else { return }
        try store.release(id)
    }

    /// Settles the reservation: commits if an output was placed (unless that already happened),
    /// refunds a charge taken for an output that was not placed after all, releases otherwise.
    package func finish() throws(ConvertError) {
        let anyPlaced = placed.load(ordering: .relaxed)
        switch phase.withLock({ $0 }) {
        case .open:
            if anyPlaced { try commit() } else { try release() }
        case .committed(let refundable?) where !anyPlaced:
            phase.withLock { $0 = .released }
            if id != nil { try store.refund(batch: refundable) }
        case .committed, .released:
            break
        }
    }

    /// Moves from open to committed, writing the charge under the phase's lock so that a
    /// concurrent caller returns only once it is on disk. A charge whose write failed stays
    /// open so it can be retried.
    private func charge(batch: String?, refundable: Bool) throws(ConvertError) {
        let id = id
        let store = store
        try phase.withLock { phase throws(ConvertError) in
            guard phase == .open else { return }
            if let id { try store.commit(id, batch: batch) }
            phase = .committed(refundable: refundable ? batch : nil)
        }
    }
}
