import Foundation
import Testing

@Suite("allowance and unlock commands")
struct AllowanceCommandTests {
    private func stateHome() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-cli-state-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("allowance --json prints every key, in a fresh state folder under XDG_STATE_HOME")
    func json() async throws {
        let home = try stateHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await CLIRunner.run(["allowance", "--json"], environment: ["XDG_STATE_HOME": home.path])
        #expect(outcome.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect(object["remaining"] as? Int == 3)
        #expect(object["dailyLimit"] as? Int == 3)
        #expect(object["unlocked"] as? Bool == false)
        #expect(object["licensee"] is NSNull)
        #expect(
            Set(object.keys) == [
                "dailyLimit", "used", "reserved", "remaining", "resetsAt", "unlocked", "licensee", "licenseExpires",
                "licenseProblem", "damaged",
            ])
        // A read makes no install: nothing is written until a conversion reserves a slot.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [])
    }

    @Test("allowance in text says what is left and how to unlock")
    func text() async throws {
        let home = try stateHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await CLIRunner.run(["allowance"], environment: ["XDG_STATE_HOME": home.path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("3 of 3 free conversions left today."))
        #expect(outcome.stdout.contains("offconvert unlock LICENSE-FILE"))
    }

    @Test("unlock with a file that is not a licence fails with a clear message and unlocks nothing")
    func badLicense() async throws {
        let home = try stateHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("fake.license")
        try Data(
            "offconvert license 1\nlicensee: Me\nexpires: never\nsignature: \(String(repeating: "A", count: 86))==\n"
                .utf8
        ).write(to: file)
        let outcome = try await CLIRunner.run(["unlock", file.path], environment: ["XDG_STATE_HOME": home.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("altered or was not issued for offconvert"))
        let after = try await CLIRunner.run(["allowance", "--json"], environment: ["XDG_STATE_HOME": home.path])
        #expect(after.stdout.contains("\"unlocked\":false"))
    }

    @Test("unlock without a file is a usage error")
    func usage() async throws {
        let outcome = try await CLIRunner.run(["unlock"])
        #expect(outcome.status == 64)
    }
}
