import Foundation
import Synchronization
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func set(_ date: Date) { current.withLock { $0 = date } }

    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

enum AllowanceFixtures {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// A local time in Paris.
    static func paris(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = paris
        return calendar.date(
            from: DateComponents(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    /// A store in `directory` on `clock`, midnight in Paris.
    static func store(_ directory: URL, clock: TestClock, key: LicensePublicKey = .builtIn) -> AllowanceStore {
        AllowanceStore(
            directory: directory.appendingPathComponent("state").path, clock: { clock.now }, timeZone: paris,
            licenseKey: key)
    }

    /// Runs a program and returns its stdout; throws if it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], stdin: URL? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) }
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) failed"])
        }
        return data
    }
}

/// An Ed25519 key pair made with the `openssl` tool, for signing test licences.
struct TestLicenseKey {
    let privateKeyPath: String
    let publicKey: LicensePublicKey

    init(in directory: URL, name: String = "key") throws {
        privateKeyPath = directory.appendingPathComponent("\(name).pem").path
        try AllowanceFixtures.run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", privateKeyPath])
        let der = try AllowanceFixtures.run(
            "/usr/bin/openssl", ["pkey", "-in", privateKeyPath, "-pubout", "-outform", "DER"])
        // The DER SubjectPublicKeyInfo of an Ed25519 key ends with the raw 32-byte key.
        publicKey = try #require(LicensePublicKey(rawBytes: Array(der.suffix(32))))
    }

    /// Writes a licence with `payload` lines signed by this key and returns its path.
    func license(_ payload: String, in directory: URL, name: String = "test.license") throws -> URL {
        let payloadURL = directory.appendingPathComponent(name + ".payload")
        try Data(payload.utf8).write(to: payloadURL)
        let signature = try AllowanceFixtures.run(
            "/usr/bin/openssl", ["pkeyutl", "-sign", "-inkey", privateKeyPath, "-rawin", "-in", payloadURL.path])
        let url = directory.appendingPathComponent(name)
        try Data((payload + "signature: " + signature.base64EncodedString() + "\n").utf8).write(to: url)
        return url
    }
}
