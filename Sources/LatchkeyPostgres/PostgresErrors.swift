internal import LatchkeySecrets
internal import PostgresNIO

/// Turns postgres-nio's errors into ``SecretStoreError``s.
///
/// Only the error's kind and the server's SQLSTATE code are kept: the server's message
/// can quote a parameter, and a parameter can be a sealed value or, for a failed login,
/// be about the password, so neither text nor the query reaches a description.
enum PostgresErrors {
    static func map(_ error: any Error, store: String, entry: String?, doing what: String) -> SecretStoreError {
        guard let error = error as? PSQLError else {
            if error is CancellationError {
                return SecretStoreError(.unavailable, store: store, entry: entry, reason: "cancelled while trying to \(what)")
            }
            return SecretStoreError(
                .ioFailure, store: store, entry: entry,
                reason: "could not \(what): \(String(describing: type(of: error)))")
        }
        let state = error.serverInfo?[.sqlState]
        switch error.code {
        case .server:
            let code = state ?? "?"
            switch code {
            case "42501":
                return SecretStoreError(
                    .permissionDenied, store: store, entry: entry,
                    reason: "the role may not \(what) (SQLSTATE 42501); grant it the privileges Docs/postgres.md lists")
            case "28P01", "28000":
                return SecretStoreError(
                    .permissionDenied, store: store, entry: entry,
                    reason: "the server refused the login (SQLSTATE \(code)): check the role and its password")
            case "42P01":
                return SecretStoreError(
                    .unavailable, store: store, entry: entry,
                    reason: "the table latchkey_secrets does not exist (SQLSTATE 42P01): run migrate() with a role that may create it")
            case "3D000":
                return SecretStoreError(.unavailable, store: store, entry: entry, reason: "the database does not exist (SQLSTATE 3D000)")
            case "53100", "53200", "53300":
                return SecretStoreError(
                    .quotaExceeded, store: store, entry: entry,
                    reason: "the server is out of a resource (SQLSTATE \(code)) while trying to \(what)")
            case _ where code.hasPrefix("08") || code.hasPrefix("57"):
                return SecretStoreError(
                    .unavailable, store: store, entry: entry,
                    reason: "the server ended the connection or is shutting down (SQLSTATE \(code)) while trying to \(what)")
            default:
                return SecretStoreError(
                    .ioFailure, store: store, entry: entry,
                    reason: "the server refused to \(what) (SQLSTATE \(code))")
            }
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return SecretStoreError(
                .unavailable, store: store, entry: entry,
                reason: "the database could not be reached or dropped the connection (\(error.code)) while trying to \(what)")
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return SecretStoreError(
                .unavailable, store: store, entry: entry,
                reason: "TLS to the database failed (\(error.code)); the URL's sslmode=disable turns TLS off for loopback only")
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return SecretStoreError(
                .permissionDenied, store: store, entry: entry,
                reason: "the login failed (\(error.code)): check the role and its password")
        default:
            return SecretStoreError(.ioFailure, store: store, entry: entry, reason: "could not \(what) (\(error.code))")
        }
    }
}

/// The tables: the secrets, keyed by namespace and name (`sealed` is a ``SealedValue``),
/// and one renewal lease per namespace (``PostgresRenewalLock``).
enum PostgresSchema {
    static let table = "latchkey_secrets"

    static let createTable = """
        CREATE TABLE IF NOT EXISTS latchkey_secrets (
            namespace text NOT NULL,
            name text NOT NULL,
            sealed bytea NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (namespace, name)
        )
        """

    static let createLeases = """
        CREATE TABLE IF NOT EXISTS latchkey_leases (
            namespace text PRIMARY KEY,
            holder text NOT NULL,
            expires_at timestamptz NOT NULL
        )
        """
}
