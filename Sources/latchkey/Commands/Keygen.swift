import ArgumentParser
import Foundation
import LatchkeyJWT

extension Latchkey {
    /// `latchkey keygen`: make a key pair for development.
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a key for development: RSA 2048 (RS*/PS*), P-256/384/521 (ES*), Ed25519 (EdDSA), or a random secret (HS*, JWK only).")

        @Option(help: "The algorithm the key is for.")
        var alg: String

        @Option(help: "The key's kid.")
        var kid: String?

        @Option(help: "Write the private key here (mode 0600) and the public key to FILE.pub or FILE.pub.json.")
        var out: String?

        @Option(help: "pem or jwk.")
        var format: String = "pem"

        @Flag(help: "Overwrite existing files.")
        var force = false

        func validate() throws {
            guard let algorithm = JWSAlgorithm.parse(alg), algorithm != .none else { throw ValidationError("unknown algorithm \"\(alg)\"") }
            guard format == "pem" || format == "jwk" else { throw ValidationError("--format is pem or jwk") }
            if format == "pem", algorithm.rawValue.hasPrefix("HS") {
                throw ValidationError("HMAC secrets have no PEM form; use --format jwk")
            }
        }

        func run() async throws {
            let algorithm = JWSAlgorithm.parse(alg)!
            let key: JWTKey
            do { key = try JWTKey.generate(for: algorithm, keyID: kid) } catch let error as JWTError { throw fail(error.message) }
            let privateText: String, publicText: String?
            if format == "jwk" {
                privateText = key.jwk(includingPrivate: true).jsonText + "\n"
                publicText = key.isSecret ? nil : key.jwk().jsonText + "\n"
            } else {
                privateText = try key.pem(includingPrivate: true) ?? ""
                publicText = try key.pem()
            }
            guard let out else {
                print(privateText, terminator: "")
                if let publicText { print(publicText, terminator: "") }
                return
            }
            try write(privateText, to: out, mode: 0o600)
            if let publicText {
                let publicPath = out + (format == "jwk" ? ".pub.json" : ".pub")
                try write(publicText, to: publicPath, mode: 0o644)
                print("wrote \(out) (private, 0600) and \(publicPath)")
            } else {
                print("wrote \(out) (secret, 0600)")
            }
        }

        private func write(_ text: String, to path: String, mode: mode_t) throws {
            if force { unlink(path) }
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            guard fd >= 0 else {
                let reason = errno == EEXIST ? "it exists (use --force to overwrite)" : String(cString: strerror(errno))
                throw fail("cannot write \(path): \(reason)")
            }
            defer { close(fd) }
            // The mode is set explicitly: the umask must not loosen or tighten it.
            fchmod(fd, mode)
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written < 0 { if errno == EINTR { continue }; throw fail("cannot write \(path): \(String(cString: strerror(errno)))") }
                offset += written
            }
            guard fsync(fd) == 0 else { throw fail("cannot sync \(path): \(String(cString: strerror(errno)))") }
        }
    }
}
