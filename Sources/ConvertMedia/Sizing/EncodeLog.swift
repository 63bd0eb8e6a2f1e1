import ConvertCore

/// The packets each encode of one compress job wrote, in order: what tests read to prove a job
/// cost about one encode (a stopped encode counts what it wrote before it stopped).
final class EncodeLog: Sendable, Equatable {
    private let counts = PthreadLocked<[Int]>([])

    init() {}

    /// The packets of each encode so far.
    var packetsPerEncode: [Int] { counts.withLock { $0 } }

    func record(_ packets: Int) { counts.withLock { $0.append(packets) } }

    static func == (lhs: EncodeLog, rhs: EncodeLog) -> Bool { lhs === rhs }
}

/// Counts the packets of one encode for the ``EncodeLog``, passing each to the watch it wraps.
final class CountingWatch: EncodeWatch {
    private let inner: (any EncodeWatch)?
    private(set) var packets = 0

    init(_ inner: (any EncodeWatch)?) { self.inner = inner }

    var stopped: Bool { inner?.stopped ?? false }

    func verdict(after packet: EncodedPacket) -> EncodeVerdict {
        packets += 1
        return inner?.verdict(after: packet) ?? .proceed
    }
}
