/// The drivers the soak knows. A new provider's driver is one file and one entry here.
enum SoakDrivers {
    /// Every driver, by ``SoakDriver/name``.
    static let all: [any SoakDriver.Type] = [
        SocialPlusSoakDriver.self,
        StytchSoakDriver.self,
        StytchB2BSoakDriver.self,
        Auth0SoakDriver.self,
    ]

    /// The driver named `name`.
    static func named(_ name: String) -> (any SoakDriver.Type)? {
        all.first { $0.name == name }
    }
}
