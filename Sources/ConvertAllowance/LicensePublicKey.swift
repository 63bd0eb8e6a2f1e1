import ConvertCore
/// The Ed25519 public key licences are checked against.
///
/// The CLI always uses ``builtIn``; the library lets a caller (tests) pass another key, which
/// only affects stores that caller creates: a licence accepted under a test key is re-verified
/// with the built-in key by every other store and so never unlocks the real install.
public struct LicensePublicKey: Sendable, Equatable {
    /// The raw 32-byte Ed25519 public key.
    public let rawBytes: [UInt8]

    /// A key from its raw 32 bytes; nil if it is not a valid Ed25519 public key.
    public init?(rawBytes: [UInt8]) {
        guard Ed25519PublicKey(raw: rawBytes) != nil else { return nil }
        self.rawBytes = rawBytes
    }

    /// The vendor's key, built into the binary.
    public static let builtIn = LicensePublicKey(uncheckedRawBytes: [
        0x90, 0xb1, 0x91, 0xee, 0xe2, 0xc7, 0x83, 0x8a, 0x44, 0x1b, 0xb2, 0x5d,
        0x5d, 0x1f, 0xb2, 0x09, 0xd4, 0x5f, 0x38, 0x60, 0x2b, 0xa9, 0x74, 0x80,
        0x22, 0x19, 0x66, 0x3d, 0x8c, 0x45, 0x52, 0xe5,
    ])

    private init(uncheckedRawBytes: [UInt8]) { rawBytes = uncheckedRawBytes }

    func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let key = Ed25519PublicKey(raw: rawBytes) else { return false }
        return key.verify(signature: signature, message: message)
    }
}
