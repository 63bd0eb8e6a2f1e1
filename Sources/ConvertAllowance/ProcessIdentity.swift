import ConvertCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Identifies a process across time: its pid, the boot it ran in and its start time in clock
/// ticks since that boot (`/proc/PID/stat` field 22). A pid alone is not enough, because the
/// kernel reuses pids: a reservation is only "held" while a process with the same pid, boot and
/// start time is still running.
struct ProcessIdentity: Codable, Equatable, Sendable {
    /// The process id.
    package var pid: Int32
    /// Start time in clock ticks after boot.
    package var startTime: UInt64
    /// `/proc/sys/kernel/random/boot_id` of the boot the process ran in.
    fileprivate var boot: String

    /// This process.
    package static let current: ProcessIdentity = {
        let pid = getpid()
        return ProcessIdentity(pid: pid, startTime: startTime(of: pid) ?? 0, boot: currentBoot() ?? "")
    }()

    /// Whether this exact process still runs. Unknown (no /proc) counts as running, so a
    /// reservation is never released from under a live process; it is then freed at the next day.
    var isRunning: Bool {
        if let boot = Self.currentBoot(), !self.boot.isEmpty, boot != self.boot { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let start = Self.startTime(of: pid) else { return access("/proc/self/stat", F_OK) != 0 }
        return start == startTime
    }

    private static func currentBoot() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        return text.trimmingWhitespaceAndNewlines()
    }

    /// Field 22 of `/proc/PID/stat`. The command name (field 2) may contain spaces and
    /// parentheses, so fields are counted from the last `)`.
    private static func startTime(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")" come field 3 (state) onward, so field 22 is at index 19.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
