/// A failure of the soak harness itself (not of the code under test).
struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
