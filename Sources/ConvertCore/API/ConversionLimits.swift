/// How much conversion work the library runs at once, for apps that start many jobs.
///
/// Every job's decoding and encoding runs on a fixed pool of ``codecThreads`` threads (as many
/// as cores, at least 2), never on Swift's cooperative pool. At most ``concurrentConversions``
/// jobs do that work at a time; a job started beyond the limit waits, in the order jobs were
/// started, as a suspended task that holds no thread. While it waits it reports
/// ``JobStage/queued``; cancelling it ends it at once with its `.cancelled` terminal event, and
/// its codec work never runs. Short work (allowance transactions, probes) has a lane of its own
/// and never waits behind conversions.
public enum ConversionLimits {
    /// The number of threads of the codec pool: the most conversions that can decode or encode
    /// at once. Fixed for the life of the process.
    public static var codecThreads: Int { BlockingExecutor.codec.threadCount }

    /// How many conversion jobs run their codec work at once (default: ``codecThreads``).
    ///
    /// Values are clamped to `1...codecThreads`. Lower it to leave cores to the rest of the app;
    /// raising it admits waiting jobs at once, lowering it lets running jobs finish. The limit
    /// counts jobs, not threads: a job's codec may start helper threads of its own (x265,
    /// libheif's tile decoding).
    public static var concurrentConversions: Int {
        get { JobAdmission.shared.limit }
        set { JobAdmission.shared.setLimit(newValue) }
    }
}
