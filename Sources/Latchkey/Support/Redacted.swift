/// How secrets appear wherever text is produced: descriptions, errors and logs.
enum Redacted {
    /// `‹redacted, N bytes›`: enough to tell tokens apart in a bug report by length,
    /// nothing of their content.
    static func describe(_ secret: String) -> String {
        "‹redacted, \(secret.utf8.count) bytes›"
    }
}
