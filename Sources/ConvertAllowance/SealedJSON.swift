import ConvertCore
import FoundationEssentials

/// One line of JSON followed by a line with the hex HMAC-SHA256 of that JSON's exact bytes under
/// the install's 32-byte secret: the allowance record and its witness are stored this way. The MAC
/// covers the bytes as written, so no canonical re-encoding is needed to check it, and a
/// `domain` prefix keeps one kind of file from being passed off as the other.
enum SealedJSON {
    /// The file contents for `value`: JSON line, MAC line.
    static func seal<T: Encodable>(_ value: T, domain: String, secret: [UInt8]) throws(ConvertError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json: Data
        do { json = try encoder.encode(value) } catch {
            throw ConvertError.wrapping(error)
        }
        guard let mac = Crypto.hmacSHA256(key: secret, data: Array(domain.utf8) + Array(json)) else {
            throw ConvertError(code: .internalError, message: "Could not protect the allowance record.")
        }
        return Array(json) + Array("\n".utf8) + Array(Crypto.hex(mac).utf8) + Array("\n".utf8)
    }

    /// The value in `bytes` if its MAC under `secret` and `domain` is right and it decodes; nil
    /// for anything else (truncated, edited, written under another secret, not JSON).
    static func unseal<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], domain: String, secret: [UInt8]) -> T? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count == 3, lines[2].isEmpty else { return nil }
        let json = Array(lines[0])
        guard let expected = Crypto.hmacSHA256(key: secret, data: Array(domain.utf8) + json),
            Crypto.constantTimeEqual(Array(Crypto.hex(expected).utf8), Array(lines[1]))
        else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(json))
    }
}
