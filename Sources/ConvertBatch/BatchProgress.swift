/// How far a ``PhotoBatch`` got: one figure for the whole batch, for one progress bar.
public struct BatchProgress: Sendable, Equatable {
    /// The share of the batch done, 0...1: each photo counts for an equal share, a converting one
    /// for the part of it done, one already converted by an earlier run as done.
    public var fraction: Double
    /// Photos that ended (converted, already done, failed or cancelled).
    public var ended: Int
    /// Photos in the batch.
    public var total: Int

    /// Creates a progress value.
    public init(fraction: Double, ended: Int, total: Int) {
        self.fraction = fraction
        self.ended = ended
        self.total = total
    }
}
