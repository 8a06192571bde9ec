import Foundation
import LatchkeyJSON
import LatchkeyJWT
import Synchronization
import Testing

// MARK: Vectors

/// One signed example from an RFC: the exact compact token and the JWK that verifies it.
struct RFCVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    let alg: String
    let token: String
    let jwk: JSONValue?
    let payload: String

    var testDescription: String { "\(name) (\(alg))" }

    func key() throws -> JWTKey {
        guard let object = jwk?.objectValue else { throw VectorError.noKey(name) }
        return try JWTKey(jwk: JWK(object: object))
    }
}

/// A token signed once at authoring time by another implementation (pyca/cryptography).
struct InteropVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let alg: String
    let publicKeyFile: String
    let token: String
    var testDescription: String { name }
}

enum VectorError: Error {
    case noKey(String)
    case missing(String)
}

/// Loads fixtures from the test bundle's `Vectors` folder.
enum Vectors {
    static func url(_ name: String) throws -> URL {
        guard
            let url = Bundle.module.url(forResource: "Vectors/\(name)", withExtension: nil)
                ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors")
        else { throw VectorError.missing(name) }
        return url
    }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    static func text(_ name: String) throws -> String { String(decoding: try data(name), as: UTF8.self) }

    /// Every RFC vector, by name. Discovery-time loading must not throw, so a missing
    /// file yields an empty table and `RFCVectorTests.allVectorsArePresent` fails instead.
    static let rfc: [String: RFCVector] = {
        var table: [String: RFCVector] = [:]
        for file in ["rfc7515.json", "rfc7520.json"] {
            guard let data = try? data(file), let vectors = try? JSONDecoder().decode([RFCVector].self, from: data) else { continue }
            for vector in vectors { table[vector.name] = vector }
        }
        return table
    }()

    static func rfc(_ name: String) throws -> RFCVector {
        guard let vector = rfc[name] else { throw VectorError.missing(name) }
        return vector
    }

    static let interop: [InteropVector] = {
        struct File: Decodable { let tokens: [InteropVector] }
        guard let data = try? data("interop-signed.json"), let file = try? JSONDecoder().decode(File.self, from: data) else { return [] }
        return file.tokens
    }()
}

// MARK: Expectations

/// Expects `body` to throw a `JWTError` with `code`; returns the error for further checks.
@discardableResult
func expectJWTError<R>(
    _ code: JWTError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> JWTError? {
    checkJWTError(Result { try body() }, code, comment, sourceLocation)
}

/// Async variant of `expectJWTError`.
@discardableResult
func expectJWTError<R>(
    _ code: JWTError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async -> JWTError? {
    let outcome: Result<R, any Error>
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    return checkJWTError(outcome, code, comment, sourceLocation)
}

/// The shared judgement of both `expectJWTError` variants.
private func checkJWTError<R>(
    _ outcome: Result<R, any Error>, _ code: JWTError.Code, _ comment: Comment?,
    _ sourceLocation: SourceLocation
) -> JWTError? {
    switch outcome {
    case .success:
        Issue.record("expected JWTError.\(code), but it succeeded\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
    case .failure(let error as JWTError):
        #expect(error.code == code, "got \(error.code): \(error.message)\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
        return error
    case .failure(let error):
        Issue.record("expected JWTError.\(code), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `body` to throw a `JWTError` whose code is one of `codes`.
@discardableResult
func expectJWTError<R>(
    oneOf codes: Set<JWTError.Code>, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> JWTError? {
    do {
        _ = try body()
        Issue.record("expected one of \(codes), but it succeeded\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as JWTError {
        #expect(codes.contains(error.code), "got \(error.code): \(error.message)\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a JWTError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

// MARK: Token surgery

/// Splits and rebuilds compact tokens for tampering tests.
struct TokenParts {
    var header: [UInt8]
    var payload: [UInt8]
    var signature: [UInt8]

    init(_ token: String) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        precondition(segments.count == 3, "test tokens have three segments")
        header = Base64URL.decode(segments[0]) ?? []
        payload = Base64URL.decode(segments[1]) ?? []
        signature = Base64URL.decode(segments[2]) ?? []
    }

    var token: String { [header, payload, signature].map { Base64URL.encode($0) }.joined(separator: ".") }

    var headerText: String {
        get { String(decoding: header, as: UTF8.self) }
        set { header = Array(newValue.utf8) }
    }
}

/// Builds a token from raw header/payload text and signature bytes, without any checks.
func rawToken(header: String, payload: String, signature: [UInt8] = []) -> String {
    Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + Base64URL.encode(signature)
}

func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

// MARK: Time

/// 2011-03-22T18:43:00Z, the `exp` of RFC 7515's example claims.
let rfcExpiry: TimeInterval = 1_300_819_380

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// The clock as the closure `JWTValidationOptions` and `JWKSCache` take.
    var function: @Sendable () -> Date { { [self] in now } }
}

func fixedClock(_ seconds: TimeInterval) -> @Sendable () -> Date {
    let date = Date(timeIntervalSince1970: seconds)
    return { date }
}

// MARK: Keys

/// Key pairs are generated once per process: RSA generation is the slow part of the suite.
enum TestKeys {
    static let pairs: [JWSAlgorithm: JWTKey] = {
        var pairs: [JWSAlgorithm: JWTKey] = [:]
        for algorithm in JWSAlgorithm.signing {
            pairs[algorithm] = try? JWTKey.generate(for: algorithm, keyID: "test-\(algorithm.rawValue)")
        }
        return pairs
    }()

    static func pair(_ algorithm: JWSAlgorithm) throws -> JWTKey {
        guard let key = pairs[algorithm] else { throw VectorError.missing("generated key for \(algorithm.rawValue)") }
        return key
    }
}
