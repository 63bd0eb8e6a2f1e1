import Testing

@testable import ConvertCore

/// ``SHA256`` against digests Python's hashlib/hmac (OpenSSL) computed, and the RFC 4231 vectors.
@Suite("SHA-256")
struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test(
        "digests at every padding boundary",
        arguments: [
            (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (1000, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
        ])
    func digests(count: Int, expected: String) {
        #expect(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: count))) == expected)
    }

    @Test("FIPS 180-4 'abc', and the same bytes fed in pieces")
    func abc() {
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var pieces = SHA256()
        for chunk in stride(from: 0, to: 1000, by: 37) {
            pieces.update([UInt8](repeating: UInt8(ascii: "a"), count: min(37, 1000 - chunk)))
        }
        #expect(hex(pieces.finish()) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("HMAC: RFC 4231 cases 1 and 2, and a key longer than a block")
    func hmac() {
        #expect(
            hex(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(SHA256.hmac(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hex(SHA256.hmac(key: [UInt8](repeating: UInt8(ascii: "k"), count: 100), data: Array("message".utf8)))
                == "1c28735416d320163f56f81bdbb83d651eed508d184e6b8b03662740a533293e")
    }
}
