public import Latchkey

/// The credentials TinyAuth logs in with.
public struct TinyAuthCredentials: LoginCredentials {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}
