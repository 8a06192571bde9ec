extension StringProtocol {
    /// The text without the leading and trailing characters `predicate` accepts.
    package func trimming(while predicate: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !predicate($0) }), let last = lastIndex(where: { !predicate($0) }) else { return "" }
        return String(self[first...last])
    }
}
