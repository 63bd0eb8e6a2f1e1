import ConvertCore
import FoundationEssentials

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
