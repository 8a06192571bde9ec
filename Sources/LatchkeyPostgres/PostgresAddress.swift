internal import Foundation
internal import LatchkeySecrets
internal import PostgresNIO

/// Where the database is and how to reach it: host and port (or a Unix socket
/// directory), role, password, database name and TLS.
///
/// Its description never shows the password.
public struct PostgresAddress: Sendable, CustomStringConvertible {
    /// How the connection is protected.
    public enum TLSMode: String, Sendable {
        /// No TLS: only for loopback or a Unix socket.
        case disable
        /// TLS required, the server's certificate and name verified against the system's
        /// roots (or `rootCertificatePath`). libpq's `require`, `verify-ca` and
        /// `verify-full` all mean this here: a certificate is always verified.
        case require
    }

    /// The host name or address (unused with ``socketDirectory``).
    public var host: String
    /// The TCP port (or the socket file's number with ``socketDirectory``).
    public var port: Int
    /// A directory holding the server's Unix socket (`.s.PGSQL.<port>`), or `nil` for TCP.
    public var socketDirectory: String?
    /// The role to log in as.
    public var username: String
    /// The role's password, if it has one.
    public var password: String?
    /// The database name (defaults to the role's name on the server).
    public var database: String?
    /// TLS to the database.
    public var tls: TLSMode
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var rootCertificatePath: String?

    /// An address from its parts.
    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil,
        tls: TLSMode = .require, rootCertificatePath: String? = nil, socketDirectory: String? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.rootCertificatePath = rootCertificatePath
        self.socketDirectory = socketDirectory
    }

    /// An address from a libpq-style URL:
    /// `postgres://user:password@host:port/database?sslmode=disable|require|verify-ca|verify-full&sslrootcert=/path`,
    /// or `?host=/socket/dir` for a Unix socket. TLS is required unless `sslmode=disable`.
    ///
    /// - Throws: `.unavailable` naming what is wrong (never the password).
    public init(url: String) throws {
        func fail(_ why: String) -> SecretStoreError {
            SecretStoreError(.unavailable, store: "PostgreSQL store", reason: "the database URL is not usable: \(why)")
        }
        guard let components = URLComponents(string: url) else { throw fail("it does not parse as a URL") }
        guard ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "") else {
            throw fail("its scheme must be postgres:// or postgresql://")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        guard let user = components.user, !user.isEmpty else { throw fail("it names no user") }
        let socket = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let host = components.host ?? ""
        guard !host.isEmpty || socket != nil else { throw fail("it names no host") }
        let tls: TLSMode
        switch query["sslmode"] ?? "require" {
        case "disable": tls = .disable
        case "require", "verify-ca", "verify-full": tls = .require
        case let other: throw fail("sslmode \"\(other.prefix(40))\" is not one of disable, require, verify-ca, verify-full")
        }
        var database = components.path
        if database.hasPrefix("/") { database.removeFirst() }
        self.init(
            host: host.isEmpty ? "localhost" : host, port: components.port ?? 5432, username: user,
            password: components.password, database: database.isEmpty ? nil : database,
            tls: tls, rootCertificatePath: query["sslrootcert"], socketDirectory: socket)
    }

    /// `postgres://user@host:port/database?sslmode=…`, without the password.
    public var redacted: String {
        let place = socketDirectory.map { "\(host):\(port)?host=\($0)" } ?? "\(host):\(port)"
        return "postgres://\(username)\(password == nil ? "" : ":(redacted)")@\(place)/\(database ?? "") (TLS: \(tls.rawValue))"
    }

    /// The redacted form.
    public var description: String { redacted }

    func clientConfiguration() -> PostgresClient.Configuration {
        if let socketDirectory {
            return PostgresClient.Configuration(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: username,
                password: password, database: database)
        }
        let tlsSetting: PostgresClient.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .require:
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let rootCertificatePath { configuration.trustRoots = .file(rootCertificatePath) }
            tlsSetting = .require(configuration)
        }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password,
            database: database, tls: tlsSetting)
    }

    /// A dedicated connection's configuration (the lock's), with the same TLS.
    func connectionConfiguration(connectTimeout: Duration) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: username,
                password: password, database: database)
        } else {
            let tlsSetting: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable:
                tlsSetting = .disable
            case .require:
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                if let rootCertificatePath { tlsConfiguration.trustRoots = .file(rootCertificatePath) }
                tlsSetting = .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password,
                database: database, tls: tlsSetting)
        }
        let (seconds, attoseconds) = connectTimeout.components
        configuration.options.connectTimeout = .nanoseconds(min(max(seconds, 0), 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000)
        return configuration
    }
}
