import Foundation
import LatchkeySecrets
import Testing

@testable import LatchkeyPostgres

extension PostgresTests {
    /// What the database holds and what the store says when it cannot do its job; the
    /// round trips themselves run in the shared store tests (LatchkeySecretsTests).
    @Suite("PostgreSQL store: sealing and errors")
    struct StoreTests {
        @Test func theDatabaseNeverHoldsAValueInTheClear() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let database = try keys.database(server)
            defer { database.shutdown() }
            let store = try database.store(namespace: uniqueNamespace("clear"))
            let token = "rt_" + UUID().uuidString
            try await store.set("refresh", token)
            #expect(try await store.string("refresh") == token)
            let hex = try await server.sql("SELECT encode(sealed, 'hex') FROM latchkey_secrets WHERE namespace = '\(store.namespace)'")
            let sealed = try #require(hex.first ?? nil)
            #expect(!sealed.contains(Data(token.utf8).map { String(format: "%02x", $0) }.joined()), "the row holds the token in the clear")
            #expect(sealed.count / 2 == SealedValue.headerLength + token.utf8.count)
            // Two writes of one value never give the same row (a fresh nonce each time).
            try await store.set("refresh", token)
            let again = try await server.sql("SELECT encode(sealed, 'hex') FROM latchkey_secrets WHERE namespace = '\(store.namespace)'")
            #expect(again.first != hex.first)
            try await store.removeAll()
        }

        @Test func aRowMovedToAnotherNameOrNamespaceDoesNotOpen() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let database = try keys.database(server)
            defer { database.shutdown() }
            let alice = try database.store(namespace: uniqueNamespace("alice"))
            let mallory = try database.store(namespace: uniqueNamespace("mallory"))
            try await alice.set("refresh", "alice's token")
            try await mallory.set("refresh", "mallory's token")
            // Copy alice's sealed row over mallory's, and under another name of alice's.
            _ = try await server.sql(
                """
                UPDATE latchkey_secrets SET sealed = (SELECT sealed FROM latchkey_secrets WHERE namespace = '\(alice.namespace)' AND name = 'refresh')
                WHERE namespace = '\(mallory.namespace)'
                """)
            _ = try await server.sql(
                """
                INSERT INTO latchkey_secrets (namespace, name, sealed)
                SELECT namespace, 'other', sealed FROM latchkey_secrets WHERE namespace = '\(alice.namespace)' AND name = 'refresh'
                """)
            let moved = await storeError { _ = try await mallory.get("refresh") }
            #expect(moved?.code == .corrupted)
            let renamed = await storeError { _ = try await alice.get("other") }
            #expect(renamed?.code == .corrupted)
            #expect(try await alice.string("refresh") == "alice's token")
            // A flipped byte of the ciphertext fails too.
            _ = try await server.sql(
                """
                UPDATE latchkey_secrets SET sealed = overlay(sealed placing '\\xff'::bytea from length(sealed) for 1)
                WHERE namespace = '\(alice.namespace)' AND name = 'refresh'
                """)
            #expect(await storeError { _ = try await alice.get("refresh") }?.code == .corrupted)
            try await alice.removeAll()
            try await mallory.removeAll()
        }

        @Test func anotherKeyIsAWrongKeyNotACorruptRow() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let first = try KeyDirectory()
            let second = try KeyDirectory()
            let writer = try first.database(server)
            let reader = try second.database(server)
            defer {
                writer.shutdown()
                reader.shutdown()
            }
            let namespace = uniqueNamespace("keys")
            try await writer.store(namespace: namespace).set("refresh", "secret")
            let error = await storeError { _ = try await reader.store(namespace: namespace).get("refresh") }
            #expect(error?.code == .wrongKey)
            #expect(error.map { "\($0)".contains("same key file") } == true)
            try await writer.store(namespace: namespace).removeAll()
        }

        @Test func aPassphraseKeySourceIsRefused() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            var options = PostgresSecretDatabase.Options()
            options.keyConfiguration = SecretStoreConfiguration(dataDirectory: keys.path, configDirectory: keys.path, keySource: .passphrase("pass"))
            let database = try PostgresSecretDatabase(url: server.url, options: options)
            defer { database.shutdown() }
            let error = await storeError { try await database.store(namespace: uniqueNamespace("pass")).set("a", "b") }
            #expect(error?.code == .wrongKey)
            #expect(error.map { "\($0)".contains("pass\"") } == false)
        }

        @Test func aWrongPasswordIsRefusedWithoutShowingIt() async throws {
            guard let server = PostgresTestServer.current() else { return }
            var address = server.address
            let password = "not-the-password-\(UUID().uuidString)"
            address.password = password
            let keys = try KeyDirectory()
            var options = PostgresSecretDatabase.Options()
            options.keyConfiguration = keys.configuration
            let database = PostgresSecretDatabase(address: address, options: options)
            defer { database.shutdown() }
            let store = try database.store(namespace: uniqueNamespace("password"))
            let error = await storeError { _ = try await store.get("a") }
            #expect(error?.code == .permissionDenied || error?.code == .unavailable, "\(String(describing: error))")
            let everything = "\(String(describing: error)) \(error?.localizedDescription ?? "") \(database.redactedAddress) \(address)"
            #expect(!everything.contains(password))
            #expect(!everything.contains(server.address.password ?? "absent"))
            let lockError = await storeError { try await store.withExclusiveLock {} }
            #expect(!"\(String(describing: lockError))".contains(password))
        }

        @Test func anUnreachableServerIsAClearErrorWithinTheTimeout() async throws {
            guard PostgresTestServer.current() != nil else { return }
            let keys = try KeyDirectory()
            var options = PostgresSecretDatabase.Options()
            options.keyConfiguration = keys.configuration
            options.operationTimeout = .seconds(3)
            options.lockTimeout = .seconds(3)
            // Port 1 on loopback: nothing listens there.
            let database = try PostgresSecretDatabase(url: "postgres://someone:hunter2@127.0.0.1:1/db?sslmode=disable", options: options)
            defer { database.shutdown() }
            let store = try database.store(namespace: uniqueNamespace("down"))
            for error in [
                await storeError { _ = try await store.get("a") }, await storeError { try await store.set("a", "b") },
                await storeError { try await store.withExclusiveLock {} },
            ] {
                #expect(error?.code == .unavailable, "\(String(describing: error))")
                #expect(!"\(String(describing: error))".contains("hunter2"))
            }
        }

        @Test(arguments: [
            "mysql://user:hunter2@host/db", "postgres://:hunter2@host/db", "postgres://user:hunter2@/db",
            "postgres://user:hunter2@host/db?sslmode=allow",
        ])
        func aBadURLIsRefusedWithoutItsPassword(_ url: String) async throws {
            let error = await storeError { _ = try PostgresAddress(url: url) }
            #expect(error?.code == .unavailable)
            #expect(!"\(String(describing: error))".contains("hunter2"))
        }

        @Test func theAddressNeverShowsThePassword() throws {
            let address = try PostgresAddress(url: "postgresql://app:s3cr%2Ft@db.internal:6432/sessions?sslmode=verify-full&sslrootcert=/etc/ca.pem")
            #expect(address.password == "s3cr/t")
            #expect(address.tls == .require)
            #expect(address.port == 6432 && address.database == "sessions" && address.rootCertificatePath == "/etc/ca.pem")
            #expect(!address.description.contains("s3cr"))
            #expect(try PostgresAddress(url: "postgres://app@db/x").tls == .require, "TLS unless turned off")
        }

        @Test func theSchemaCanBeMigratedByAnotherRoleAndUsedWithoutCreating() async throws {
            guard let server = PostgresTestServer.current() else { return }
            let keys = try KeyDirectory()
            let migrator = try keys.database(server)
            try await migrator.migrate()
            try await migrator.migrate()
            migrator.shutdown()
            var options = PostgresSecretDatabase.Options()
            options.keyConfiguration = keys.configuration
            options.createsSchema = false
            let app = try PostgresSecretDatabase(url: server.url, options: options)
            defer { app.shutdown() }
            let store = try app.store(namespace: uniqueNamespace("migrated"))
            try await store.set("a", "b")
            #expect(try await store.string("a") == "b")
            try await store.removeAll()
        }
    }
}
