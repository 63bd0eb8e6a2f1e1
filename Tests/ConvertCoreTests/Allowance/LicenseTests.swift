import Foundation
import Testing

@testable import ConvertCore

@Suite("Licences")
struct LicenseTests {
    private static let payload = """
        offconvert license 1
        id: T-1
        licensee: Ada Lovelace <ada@example.com>
        issued: 2026-01-01T00:00:00Z
        expires: 2027-01-01T00:00:00Z

        """

    @Test("a valid licence unlocks: no limit, nothing charged")
    func valid() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try TestLicenseKey(in: folder)
        let file = try key.license(Self.payload, in: folder)
        let clock = TestClock(AllowanceFixtures.paris(2026, 8, 1, 12, 0))
        let store = AllowanceFixtures.store(folder, clock: clock, key: key.publicKey)
        let license = try store.unlock(licenseFile: file.path)
        #expect(license.licensee == "Ada Lovelace <ada@example.com>")
        #expect(license.id == "T-1")
        #expect(license.expires == ISO8601DateFormatter().date(from: "2027-01-01T00:00:00Z"))
        try FileManager.default.removeItem(at: file)
        for _ in 0..<10 {
            let reservation = try store.reserve()
            #expect(reservation.isUnlimited)
            try reservation.commit()
        }
        let status = try store.status()
        #expect(status.isUnlocked && status.remaining == nil && status.used == 0)
        // The same stored licence means nothing under another key (the built-in one): a test
        // key cannot unlock a real install.
        let other = AllowanceFixtures.store(folder, clock: clock)
        #expect(try other.status().isUnlocked == false)
        #expect(try other.status().licenseProblem != nil)
    }

    @Test("an altered licence is rejected")
    func altered() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try TestLicenseKey(in: folder)
        let file = try key.license(Self.payload, in: folder)
        let text = try String(contentsOf: file, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "2027-01-01", with: "2099-01-01").utf8).write(to: file)
        let store = AllowanceFixtures.store(
            folder, clock: TestClock(AllowanceFixtures.paris(2026, 8, 1, 12, 0)), key: key.publicKey)
        let error = expectConvertError(.licenseInvalid) { try store.unlock(licenseFile: file.path) }
        #expect(error?.category == .allowance)
        #expect(try store.status().isUnlocked == false)
    }

    @Test("a licence signed with another key is rejected")
    func wrongKey() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let signer = try TestLicenseKey(in: folder, name: "signer")
        let trusted = try TestLicenseKey(in: folder, name: "trusted")
        let file = try signer.license(Self.payload, in: folder)
        let store = AllowanceFixtures.store(
            folder, clock: TestClock(AllowanceFixtures.paris(2026, 8, 1, 12, 0)), key: trusted.publicKey)
        expectConvertError(.licenseInvalid) { try store.unlock(licenseFile: file.path) }
        // And the built-in key rejects it too.
        let builtIn = AllowanceFixtures.store(folder, clock: TestClock(Date()))
        expectConvertError(.licenseInvalid) { try builtIn.unlock(licenseFile: file.path) }
    }

    @Test("an expired licence is rejected, and turning the clock back does not revive it")
    func expired() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try TestLicenseKey(in: folder)
        let file = try key.license(Self.payload, in: folder)
        let clock = TestClock(AllowanceFixtures.paris(2026, 12, 31, 12, 0))
        let store = AllowanceFixtures.store(folder, clock: clock, key: key.publicKey)
        try store.unlock(licenseFile: file.path)
        #expect(try store.status().isUnlocked)
        clock.set(AllowanceFixtures.paris(2027, 1, 2, 12, 0))
        let status = try store.status()
        #expect(!status.isUnlocked)
        #expect(status.licenseProblem?.contains("expired") == true)
        #expect(status.remaining == 3)
        expectConvertError(.licenseExpired) { try store.unlock(licenseFile: file.path) }
        clock.set(AllowanceFixtures.paris(2026, 12, 1, 12, 0))
        #expect(try store.status().isUnlocked == false)
    }

    @Test(
        "malformed licence files get a clear error",
        arguments: [
            "", "hello\n", "offconvert license 1\nlicensee: x\nexpires: never\nsignature: bm90IGEgc2lnbmF0dXJl\n",
            "offconvert license 2\nlicensee: x\nexpires: never\nsignature: " + String(repeating: "A", count: 86)
                + "==\n",
        ])
    func malformed(_ text: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.license")
        try Data(text.utf8).write(to: file)
        let store = AllowanceFixtures.store(folder, clock: TestClock(Date()))
        expectConvertError(.licenseMalformed) { try store.unlock(licenseFile: file.path) }
    }

    @Test("a signed licence without an expiry field is malformed; 'never' never expires")
    func fields() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try TestLicenseKey(in: folder)
        let store = AllowanceFixtures.store(
            folder, clock: TestClock(AllowanceFixtures.paris(2090, 1, 1, 0, 0)), key: key.publicKey)
        let missing = try key.license("offconvert license 1\nlicensee: Bob\n", in: folder, name: "missing.license")
        expectConvertError(.licenseMalformed) { try store.unlock(licenseFile: missing.path) }
        let forever = try key.license(
            "offconvert license 1\nlicensee: Bob\nexpires: never\n", in: folder, name: "forever.license")
        #expect(try store.unlock(licenseFile: forever.path).expires == nil)
    }

    @Test("Scripts/sign-license issues licences the verifier accepts")
    func signingScript() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try TestLicenseKey(in: folder)
        let script = Fixtures.root.appendingPathComponent("Scripts/sign-license").path
        let text = try AllowanceFixtures.run(
            "/bin/bash", [script, key.privateKeyPath, "Grace Hopper", "2030-01-01T00:00:00Z", "G-7"])
        let file = folder.appendingPathComponent("issued.license")
        try text.write(to: file)
        let store = AllowanceFixtures.store(
            folder, clock: TestClock(AllowanceFixtures.paris(2029, 6, 1, 12, 0)), key: key.publicKey)
        let license = try store.unlock(licenseFile: file.path)
        #expect(license.licensee == "Grace Hopper")
        #expect(license.id == "G-7")
        #expect(license.issued != nil)
    }
}
