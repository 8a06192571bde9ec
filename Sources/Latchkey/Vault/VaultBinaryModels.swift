/// The tokens and the five objects in the binary record (format 2), field by field in
/// a fixed order; each `init(vault:…)` reads exactly what `write(to:)` writes. The
/// objects' provider JSON is a reference into the record's JSON block. Fields are
/// assigned one by one, in reading order; the caller checks `reader.failure`.
extension SessionTokens {
    init(vault reader: inout VaultBinaryReader) {
        accessToken = reader.string()
        sessionToken = reader.optionalString()
        refreshToken = reader.optionalString()
        idToken = reader.optionalString()
        issuedAt = reader.date()
        expiresAt = reader.date()
        var attributes: [String: String] = [:]
        let count = reader.count(minimumSize: 8)
        if count > 0 {
            attributes.reserveCapacity(count)
            for _ in 0..<count {
                let name = reader.string()
                if attributes.updateValue(reader.string(), forKey: name) != nil { reader.fail("a token attribute appears twice") }
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
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) {
        id = reader.optionalString()
        userID = reader.string()
        startedAt = reader.date()
        lastAccessedAt = reader.date()
        expiresAt = reader.date()
        factorsJSON = reader.deferredJSON(.array, in: block)
        roles = reader.strings()
        rawJSON = reader.deferredJSON(.object, in: block)
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
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) {
        id = reader.string()
        email = reader.optionalString()
        name = reader.optionalString()
        status = reader.optionalString()
        rawJSON = reader.deferredJSON(.object, in: block)
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
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) {
        id = reader.string()
        memberID = reader.string()
        organizationID = reader.string()
        organizationSlug = reader.optionalString()
        startedAt = reader.date()
        lastAccessedAt = reader.date()
        expiresAt = reader.date()
        factorsJSON = reader.deferredJSON(.array, in: block)
        roles = reader.strings()
        rawJSON = reader.deferredJSON(.object, in: block)
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
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) {
        id = reader.string()
        organizationID = reader.string()
        email = reader.optionalString()
        name = reader.optionalString()
        status = reader.optionalString()
        rawJSON = reader.deferredJSON(.object, in: block)
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
    init(vault reader: inout VaultBinaryReader, json block: DeferredJSONBlock?) {
        id = reader.string()
        name = reader.optionalString()
        slug = reader.optionalString()
        rawJSON = reader.deferredJSON(.object, in: block)
    }

    func write(to writer: inout VaultBinaryWriter) {
        writer.string(id)
        writer.optionalString(name)
        writer.optionalString(slug)
        writer.json(rawJSON)
    }
}
