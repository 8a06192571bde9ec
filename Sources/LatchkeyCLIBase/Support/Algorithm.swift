import ArgumentParser
package import LatchkeyJWT

/// An `--alg` value: any signing algorithm Latchkey implements, matched without regard
/// to case (`es256`, `ES256`, `eddsa`). `none` is not accepted: no command signs or
/// verifies unsecured tokens.
package struct AlgorithmArgument: ExpressibleByArgument, Sendable {
    package let algorithm: JWSAlgorithm

    package init?(argument: String) {
        guard
            let match = JWSAlgorithm(rawValue: argument)
                ?? JWSAlgorithm.signing.first(where: { $0.rawValue.lowercased() == argument.lowercased() }),
            match != .none
        else { return nil }
        algorithm = match
    }

    package static var allValueStrings: [String] { JWSAlgorithm.signing.map(\.rawValue) }

    package var isHMAC: Bool { [.hs256, .hs384, .hs512].contains(algorithm) }
}
