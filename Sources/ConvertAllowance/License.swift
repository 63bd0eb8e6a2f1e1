import ConvertCore
import FoundationEssentials

/// A verified offconvert licence: who it was issued to and until when it is valid.
///
/// ## File format
/// A licence is a small UTF-8 text file:
///
/// ```
/// offconvert license 1
/// id: 2026-0042
/// licensee: Jane Doe <jane@example.com>
/// issued: 2026-11-30T00:00:00Z
/// expires: 2027-11-30T00:00:00Z
/// signature: 3q2+7w...base64...==
/// ```
///
/// The first line names the format and its version. Then `key: value` lines: `licensee` and
/// `expires` (an ISO 8601 time in UTC, or `never`) are required; `id`, `issued` and keys this
/// version does not know are allowed and covered by the signature. The last line is
/// `signature: ` and the base64 of the 64-byte Ed25519 signature of every byte before that line
/// (the payload, including its final newline), made with the vendor's private key.
/// `Scripts/sign-license` makes one with `openssl`.
public struct License: Sendable, Equatable {
    /// The licence's identifier, if it has one.
    public var id: String?
    /// Who the licence was issued to.
    public var licensee: String
    /// When it was issued, if stated.
    public var issued: Date?
    /// When it stops being valid; nil for a licence that never expires.
    public var expires: Date?

    /// The first line of every licence file of this version.
    package static let header = "offconvert license 1"
    /// Licence files are a few hundred bytes; anything far bigger is not one.
    static let maximumSize = 64 * 1024

    /// Parses `bytes` and checks the signature with `key`, and the expiry against `now`.
    /// Throws `.allowance` errors keyed `license.malformed`, `license.invalid` (altered, or not
    /// signed with the key) and `license.expired`.
    static func verify(_ bytes: [UInt8], key: LicensePublicKey, now: Date, path: String?) throws(ConvertError)
        -> License
    {
        func malformed(_ why: String) -> ConvertError {
            ConvertError(
                code: .licenseMalformed, message: "This is not an offconvert licence file (\(why)).",
                path: path)
        }
        guard bytes.count <= maximumSize else { throw malformed("it is too large") }
        let marker = Array("\nsignature: ".utf8)
        guard let markerStart = lastRange(of: marker, in: bytes) else { throw malformed("no signature line") }
        let message = Array(bytes[...markerStart])
        let signatureText = String(decoding: bytes[(markerStart + marker.count)...], as: UTF8.self)
            .trimmingWhitespaceAndNewlines()
        guard let signature = Data(base64Encoded: signatureText), signature.count == 64 else {
            throw malformed("the signature is not 64 bytes of base64")
        }
        guard let text = String(validating: message, as: UTF8.self) else { throw malformed("it is not UTF-8 text") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.first == header else { throw malformed("the first line is not '\(header)'") }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw malformed("a line is not 'key: value'") }
            let name = line[..<colon].trimmingWhitespace()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            guard fields[name] == nil else { throw malformed("'\(name)' appears twice") }
            fields[name] = value
        }
        // The signature is checked before any field is trusted or reported.
        guard key.verify(signature: Array(signature), message: message) else {
            throw ConvertError(
                code: .licenseInvalid,
                message: "This licence was altered or was not issued for offconvert; the limit stays in place.",
                path: path)
        }
        guard let licensee = fields["licensee"], !licensee.isEmpty else { throw malformed("no licensee") }
        guard let expiresText = fields["expires"] else { throw malformed("no expiry") }
        var expires: Date?
        if expiresText != "never" {
            guard let date = parseDate(expiresText) else { throw malformed("the expiry is not an ISO 8601 time") }
            expires = date
        }
        var issued: Date?
        if let issuedText = fields["issued"] {
            guard let date = parseDate(issuedText) else { throw malformed("the issue time is not an ISO 8601 time") }
            issued = date
        }
        let license = License(id: fields["id"], licensee: licensee, issued: issued, expires: expires)
        if let expires, now >= expires {
            throw ConvertError(
                code: .licenseExpired,
                message: "This licence expired on \(formatDate(expires)); the limit stays in place.", path: path)
        }
        return license
    }

    fileprivate static func parseDate(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }

    fileprivate static func formatDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    private static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.count - needle.count
        while start >= 0 {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
            start -= 1
        }
        return nil
    }
}
