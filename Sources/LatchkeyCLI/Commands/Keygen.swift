import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeyJWT

extension LatchkeyCommand {
    /// `latchkey keygen`: make a key for development.
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keygen",
            abstract: "Generate a key for development and tests.",
            discussion: """
                RS*/PS*: RSA 2048. ES256/ES384/ES512: P-256/P-384/P-521. EdDSA/Ed25519: Ed25519. \
                HS256/384/512: 32/48/64 random bytes, written as an oct JWK (the default and only \
                format for secrets; use it with --key, which reads JWKs).

                PEM: the private key as PKCS#8, the public key as SubjectPublicKeyInfo. JWK: one JSON \
                object per key, with kid, alg and use "sig".

                --kid with PEM: a PEM file has no place for a kid, so with --out the public key is also \
                written as a JWK carrying the kid, to FILE.pub.json (verify --key FILE.pub.json checks it; \
                sign still needs --kid, or use --format jwk, whose private file keeps the kid). Without \
                --out a note on standard error says the kid is not in the output.

                With --out FILE: the private key (or secret) goes to FILE, created with mode 0600, and \
                the public key to FILE.pub (PEM) or FILE.pub.json (JWK); existing files are never \
                replaced unless --force. Without --out: the private key, then the public key, on \
                standard output.

                Exit status: 0 written; 1 a file exists or cannot be written; 64 usage error.
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case pem, jwk
        }

        @Option(help: ArgumentHelp("The algorithm the key is for.", valueName: "alg"))
        var alg: AlgorithmArgument

        @Option(
            help: ArgumentHelp(
                "The key's kid. Kept in JWK files; with PEM and --out, also written as FILE.pub.json (a PEM has no place for it).", valueName: "kid"))
        var kid: String?

        @Option(help: ArgumentHelp("Write the private key to FILE (mode 0600) and the public key beside it.", valueName: "file"))
        var out: String?

        @Option(help: ArgumentHelp("pem or jwk (default: pem, or jwk for HS*).", valueName: "format"))
        var format: Format?

        @Flag(help: "Replace existing files at --out.")
        var force = false

        func validate() throws {
            if alg.isHMAC, format == .pem {
                throw ValidationError("an HMAC secret has no PEM form; HS* keys are written as an oct JWK (--format jwk)")
            }
            if out == "" { throw ValidationError("--out needs a file name") }
        }

        func run() async throws {
            let format = self.format ?? (alg.isHMAC ? .jwk : .pem)
            let key: JWTKey
            do { key = try JWTKey.generate(for: alg.algorithm, keyID: kid) } catch let error as JWTError { throw fail(error.message) }
            let privateText: String, publicText: String?
            // PEM has no place for a kid: the public JWK carries it beside the PEM files.
            var kidJWKText: String?
            switch format {
            case .jwk:
                privateText = key.jwk(includingPrivate: true).jsonText + "\n"
                publicText = key.isSecret ? nil : key.jwk().jsonText + "\n"
            case .pem:
                do {
                    guard let privatePEM = try key.pem(includingPrivate: true) else { throw fail("this key has no PEM form") }
                    privateText = privatePEM
                    publicText = try key.pem()
                } catch let error as JWTError {
                    throw fail(error.message)
                }
                if kid != nil { kidJWKText = key.jwk().jsonText + "\n" }
            }
            guard let out else {
                print(privateText, terminator: "")
                if let publicText { print(publicText, terminator: "") }
                if let kid, kidJWKText != nil {
                    printError(
                        "note: the kid \"\(kid)\" is not in the PEM output (PEM has no place for it); with --out it is written to FILE.pub.json, or use --format jwk"
                    )
                }
                return
            }
            let publicPath = publicText == nil ? nil : out + (format == .jwk ? ".pub.json" : ".pub")
            let kidJWKPath = kidJWKText == nil ? nil : out + ".pub.json"
            let paths = [out] + [publicPath, kidJWKPath].compactMap { $0 }
            // Check every file before writing any, so a refusal leaves nothing half done.
            if !force {
                for path in paths where Self.exists(path) {
                    throw fail("\(path) exists; not overwriting it (use --force to replace it)")
                }
            }
            try Self.create(out, contents: privateText, mode: 0o600, replacing: force)
            var written = [out]
            do {
                if let publicPath, let publicText {
                    try Self.create(publicPath, contents: publicText, mode: 0o644, replacing: force)
                    written.append(publicPath)
                }
                if let kidJWKPath, let kidJWKText {
                    try Self.create(kidJWKPath, contents: kidJWKText, mode: 0o644, replacing: force)
                    written.append(kidJWKPath)
                }
            } catch {
                for path in written { unlink(path) }
                throw error
            }
            switch (publicPath, kidJWKPath) {
            case (let publicPath?, let kidJWKPath?):
                print(
                    "wrote \(out) (private key, mode 0600), \(publicPath) (public key) and \(kidJWKPath) (public JWK with kid \"\(TerminalText.escape(kid ?? ""))\", which PEM cannot hold)"
                )
            case (let publicPath?, nil):
                print("wrote \(out) (private key, mode 0600) and \(publicPath) (public key)")
            default:
                print("wrote \(out) (secret, mode 0600)")
            }
        }

        private static func exists(_ path: String) -> Bool {
            var status = stat()
            return lstat(path, &status) == 0
        }

        /// Creates `path` with exactly `mode` (never following a symlink, never replacing a
        /// file unless `replacing`), writes `contents` and syncs it.
        private static func create(_ path: String, contents: String, mode: mode_t, replacing: Bool) throws {
            if replacing, exists(path), unlink(path) != 0 {
                throw fail("cannot replace \(path): \(String(cString: strerror(errno)))")
            }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                let reason = errno == EEXIST ? "it exists (use --force to replace it)" : String(cString: strerror(errno))
                throw fail("cannot create \(path): \(reason)")
            }
            var failure: String?
            // open(2) applies the umask; the mode must be exactly what was asked.
            if fchmod(descriptor, mode) != 0 { failure = String(cString: strerror(errno)) }
            let bytes = Array(contents.utf8)
            var offset = 0
            while failure == nil, offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                } else {
                    offset += written
                }
            }
            if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
            close(descriptor)
            if let failure {
                unlink(path)
                throw fail("cannot write \(path): \(failure)")
            }
        }
    }
}
