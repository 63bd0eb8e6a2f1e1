internal import CCrypto

/// The cryptographic primitives offconvert needs: HMAC-SHA256 for the allowance record's MAC and
/// SHA-256 for batch journal names (both ``SHA256``, in Swift), and Ed25519 verification for
/// licences (libcrypto). Internal, so no C type leaks out.
package enum Crypto {
    /// HMAC-SHA256 of `data` under `key` (never nil: the optional is from when libcrypto computed it).
    package static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8]? {
        SHA256.hmac(key: key, data: data)
    }

    /// SHA-256 of `data` (never nil, as above).
    package static func sha256(_ data: [UInt8]) -> [UInt8]? {
        SHA256.hash(data)
    }

    /// Lower-case hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Compares two byte strings in time independent of where they differ, so a MAC check does
    /// not leak how many leading bytes of a forged MAC were right.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// An Ed25519 public key loaded into libcrypto; owns its `EVP_PKEY`.
package final class Ed25519PublicKey {
    private let key: OpaquePointer

    /// Loads a raw 32-byte Ed25519 public key; nil if it is not one.
    package init?(raw bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, buffer.baseAddress, buffer.count)
        }
        guard let loaded else { return nil }
        key = loaded
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is a valid Ed25519 signature of `message` under this key.
    package func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 is a one-shot ("pure") scheme: no digest name, and EVP_DigestVerify over the
        // whole message rather than Update/Final.
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                EVP_DigestVerify(
                    context, signatureBuffer.baseAddress, signatureBuffer.count, messageBuffer.baseAddress,
                    messageBuffer.count)
            }
        }
        // Drain the error queue a failed verification leaves behind, so it cannot be misreported
        // by an unrelated libcrypto caller later on this thread.
        ERR_clear_error()
        return result == 1
    }
}
