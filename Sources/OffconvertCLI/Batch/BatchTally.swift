import ConvertCore

/// What a batch did, for its summary.
package struct BatchTally: Sendable {
    /// Items converted.
    package var done = 0
    /// Items among ``done`` that wrote nothing because nothing needed changing.
    package var unchanged = 0
    /// How the summary names ``unchanged`` items ("3 had no location").
    var unchangedKey = Messages.Key.summaryUnchanged
    /// Items that failed, with why, in the order they failed.
    package var failures: [(input: String, error: ConvertError)] = []
    /// Items already done by an earlier run.
    package var skipped = 0
    /// Inputs not converted because they are not the command's kind (named on stderr).
    package var setAside = 0
    /// Sidecars and hidden files left alone without a line each.
    package var ignored = 0
    /// Items a dry run planned.
    package var planned = 0
    /// Whether this is a dry run's tally ("0 would be converted", never "0 done").
    package var isDryRun = false
    /// Items not converted because the batch was interrupted.
    package var unfinished = 0
    /// Whether SIGINT/SIGTERM stopped the batch.
    package var interrupted = false
    /// Bytes read from the converted items' inputs.
    package var bytesIn: Int64 = 0
    /// Bytes written to outputs.
    package var bytesOut: Int64 = 0

    /// An empty tally.
    package init(skipped: Int = 0) {
        self.skipped = skipped
    }
}
