/// The tokens and the five objects in the binary record (format 2), field by field in
/// a fixed order; each `init(vault:…)` reads exactly what `write(to:)` writes. The
/// objects' provider JSON is a reference into the record's JSON block. Fields are
/// assigned one by one, in reading order: delegating to the memberwise initializers
/// copied and destroyed each model once more (callgrind).
extension SessionTokens {
    init(vault reader: inout VaultBinaryReader) throws(VaultError) {
        accessToken = try reader.string()
        sessionToken = try reader.optionalString()
        refreshToken = try reader.optionalString()
        idToken = try reader.optionalString()
        issuedAt = try reader.date()
        expiresAt = try reader.date()
        var attributes: [String: String] = [:]
        let count = try reader.count(minimumSize: 8)
        if count > 0 {
            attributes.reserveCapacity(count)
            for _ in 0..<count {
                let name = try reader.string()
                guard attributes.updateValue(try reader.string(), forKey: name) == nil else {
                    throw VaultError.malformed("token attribute \"\(name)\" appears twice")
                }
            }
        }
        self.attributes = attributes
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(accessToken)
        writer.optionalString(sessionToken)
        writer.optionalString(refreshToken)
        writer.optionalString(idToken)
        writer.date(issuedAt)
        writer.date(expiresAt)
        writer.uint32(UInt32(clamping: attributes.count))
        for name in attributes.keys.sorted() {
            writer.string(name)
            writer.string(attributes[name] ?? "")
        }
    }
}

extension Session {
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) throws(VaultError) {
        id = try reader.optionalString()
        userID = try reader.string()
        startedAt = try reader.date()
        lastAccessedAt = try reader.date()
        expiresAt = try reader.date()
        factorsJSON = try reader.deferredJSON(.array, in: block)
        roles = try reader.strings()
        rawJSON = try reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.optionalString(id)
        writer.string(userID)
        writer.date(startedAt)
        writer.date(lastAccessedAt)
        writer.date(expiresAt)
        writer.json(factorsJSON)
        writer.strings(roles)
        writer.json(rawJSON)
    }
}

extension User {
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) throws(VaultError) {
        id = try reader.string()
        email = try reader.optionalString()
        name = try reader.optionalString()
        status = try reader.optionalString()
        rawJSON = try reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(id)
        writer.optionalString(email)
        writer.optionalString(name)
        writer.optionalString(status)
        writer.json(rawJSON)
    }
}

extension MemberSession {
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) throws(VaultError) {
        id = try reader.string()
        memberID = try reader.string()
        organizationID = try reader.string()
        organizationSlug = try reader.optionalString()
        startedAt = try reader.date()
        lastAccessedAt = try reader.date()
        expiresAt = try reader.date()
        factorsJSON = try reader.deferredJSON(.array, in: block)
        roles = try reader.strings()
        rawJSON = try reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(id)
        writer.string(memberID)
        writer.string(organizationID)
        writer.optionalString(organizationSlug)
        writer.date(startedAt)
        writer.date(lastAccessedAt)
        writer.date(expiresAt)
        writer.json(factorsJSON)
        writer.strings(roles)
        writer.json(rawJSON)
    }
}

extension Member {
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) throws(VaultError) {
        id = try reader.string()
        organizationID = try reader.string()
        email = try reader.optionalString()
        name = try reader.optionalString()
        status = try reader.optionalString()
        rawJSON = try reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(id)
        writer.string(organizationID)
        writer.optionalString(email)
        writer.optionalString(name)
        writer.optionalString(status)
        writer.json(rawJSON)
    }
}

extension Organization {
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) throws(VaultError) {
        id = try reader.string()
        name = try reader.optionalString()
        slug = try reader.optionalString()
        rawJSON = try reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(id)
        writer.optionalString(name)
        writer.optionalString(slug)
        writer.json(rawJSON)
    }
}
