import ConvertAllowance
import ConvertCore
import FoundationEssentials

/// `offconvert allowance`: what is left of today's free conversions.
package enum AllowanceCommand: Command {
    /// `--json`.
    package static let json = Flag("json", help: "Print one JSON object instead of text.")

    package static let spec = CommandSpec(
        name: "allowance",
        abstract: "Show how many free conversions are left today.",
        discussion: """
            Three conversions a day are free; a command over many files counts as one, and only \
            a conversion that put an output in place is counted. The count resets at local \
            midnight. 'offconvert unlock LICENSE-FILE' removes the limit.
            """,
        options: [json.spec],
        examples: ["allowance", "allowance --json"])

    /// The `--json` shape: stable keys, documented in the README.
    package struct Report: Encodable {
        package var dailyLimit: Int
        package var used: Int
        package var reserved: Int
        /// Null when unlocked.
        package var remaining: Int?
        package var resetsAt: String
        package var unlocked: Bool
        package var licensee: String?
        var licenseExpires: String?
        package var licenseProblem: String?
        package var damaged: Bool

        private enum CodingKeys: String, CodingKey {
            case dailyLimit, used, reserved, remaining, resetsAt, unlocked, licensee, licenseExpires, licenseProblem
            case damaged
        }

        /// Absent values are written as `null` so every key is always present.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(dailyLimit, forKey: .dailyLimit)
            try container.encode(used, forKey: .used)
            try container.encode(reserved, forKey: .reserved)
            try container.encode(remaining, forKey: .remaining)
            try container.encode(resetsAt, forKey: .resetsAt)
            try container.encode(unlocked, forKey: .unlocked)
            try container.encode(licensee, forKey: .licensee)
            try container.encode(licenseExpires, forKey: .licenseExpires)
            try container.encode(licenseProblem, forKey: .licenseProblem)
            try container.encode(damaged, forKey: .damaged)
        }
    }

    package static func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let allowance = try AllowanceStore().status()
        if arguments.has(json) {
            let report = Report(
                dailyLimit: allowance.dailyLimit, used: allowance.used, reserved: allowance.reserved,
                remaining: allowance.remaining, resetsAt: iso(allowance.resetsAt), unlocked: allowance.isUnlocked,
                licensee: allowance.license?.licensee, licenseExpires: allowance.license?.expires.map(iso),
                licenseProblem: allowance.licenseProblem, damaged: allowance.isDamaged)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            console.out(String(decoding: try encoder.encode(report), as: UTF8.self))
            return ExitCode.success
        }
        if let license = allowance.license {
            var line = "Unlocked: licensed to \(license.licensee.terminalSafe)"
            if let expires = license.expires { line += " until \(local(expires))" }
            console.out(line + ". There is no daily limit.")
            return ExitCode.success
        }
        let left = allowance.remaining ?? 0
        console.out("\(left) of \(allowance.dailyLimit) free conversions left today.")
        if allowance.reserved > 0 { console.out("\(allowance.reserved) in progress.") }
        console.out("The count resets at \(local(allowance.resetsAt)).")
        if allowance.isDamaged {
            console.out("The allowance record was edited, truncated or removed, so none are left until then.")
        }
        if let problem = allowance.licenseProblem { console.out("Stored licence not applied: \(problem.terminalSafe)") }
        console.out("Remove the limit with 'offconvert unlock LICENSE-FILE'.")
        return ExitCode.success
    }

    package static func iso(_ date: Date) -> String {
        LocalDay(zone: nil).iso8601(date)
    }

    package static func local(_ date: Date) -> String {
        LocalDay(zone: nil).describe(date)
    }
}
