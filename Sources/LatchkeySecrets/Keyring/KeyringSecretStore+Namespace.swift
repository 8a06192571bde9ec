internal import Glibc

/// Finding and creating the namespace keyring: a keyring linked directly into the
/// persistent (or user) keyring, found by exact type and description among that
/// keyring's own links, never inside a nested keyring.
extension KeyringSecretStore {

    /// The keyring new namespace keyrings are linked into: the persistent keyring when
    /// the kernel has one (asking for it renews its expiry), else the user keyring.
    func parentKeyring() throws -> Int32 {
        do throws(Errno) {
            let id = try systemCall { system.getPersistent(KeyringSystem.processKeyring) }
            persistentState.withLock { $0 = 1 }
            return Int32(truncatingIfNeeded: id)
        } catch  where error.rawValue == EOPNOTSUPP {
            do throws(Errno) {
                let id = try systemCall { system.userKeyring() }
                persistentState.withLock { $0 = 0 }
                return Int32(truncatingIfNeeded: id)
            } catch {
                throw failure(error, "find the user keyring", entry: nil)
            }
        } catch {
            throw failure(error, "find the persistent keyring", entry: nil)
        }
    }

    /// Finds the namespace keyring, creating it if asked; caches its id.
    ///
    /// Creation stages the keyring in the process keyring, then moves it with
    /// `KEYCTL_MOVE_EXCL`, so two processes racing to create it cannot displace each
    /// other's: the loser drops its own and uses the winner's.
    func namespaceKeyring(create: Bool) throws -> Int32? {
        let parent = try parentKeyring()
        if let found = try keyringDescription.withCString({ try directChild(of: parent, .keyring, $0, entry: nil) }) {
            cachedKeyring.withLock { $0 = found }
            return found
        }
        guard create else {
            cachedKeyring.withLock { $0 = 0 }
            return nil
        }
        var description = Array(keyringDescription.utf8CString)
        let staged: Int32
        do throws(Errno) {
            staged = try systemCall { system.addKey(KeyType.keyring.cString, &description, nil, 0, KeyringSystem.processKeyring) }
            try systemCallVoid { system.setPermissions(staged, KeyringSystem.permissions) }
        } catch {
            throw failure(error, "create the namespace keyring", entry: nil)
        }
        do throws(Errno) {
            try systemCallVoid { system.moveExclusive(staged, KeyringSystem.processKeyring, parent) }
        } catch  where error.rawValue == EEXIST {
            // Another process won the race, or an invalidated keyring awaits garbage
            // collection: use the winner's, or displace the dead one.
            if let winner = try namespaceKeyring(create: false) {
                _ = try? systemCall { system.invalidate(staged) }
                return winner
            }
            do throws(Errno) {
                try systemCallVoid { system.link(staged, parent) }
                _ = try? systemCall { system.unlink(staged, KeyringSystem.processKeyring) }
            } catch {
                _ = try? systemCall { system.invalidate(staged) }
                throw failure(error, "link the namespace keyring", entry: nil)
            }
        } catch  where error.rawValue == EOPNOTSUPP || error.rawValue == EINVAL {
            // Kernels before 5.1 have no KEYCTL_MOVE: link, accepting a tiny race.
            do throws(Errno) {
                try systemCallVoid { system.link(staged, parent) }
                _ = try? systemCall { system.unlink(staged, KeyringSystem.processKeyring) }
            } catch {
                throw failure(error, "link the namespace keyring", entry: nil)
            }
        } catch {
            _ = try? systemCall { system.invalidate(staged) }
            throw failure(error, "link the namespace keyring", entry: nil)
        }
        logger.debug("created keyring \(keyringDescription)")
        cachedKeyring.withLock { $0 = staged }
        return staged
    }

    /// ``namespaceKeyring(create:)`` with `create: true`, which always returns an id.
    func createdNamespaceKeyring() throws -> Int32 {
        guard let keyring = try namespaceKeyring(create: true) else {
            throw SecretStoreError(.ioFailure, store: storeLabel, reason: "the namespace keyring \(keyringDescription) could not be created")
        }
        return keyring
    }
}
