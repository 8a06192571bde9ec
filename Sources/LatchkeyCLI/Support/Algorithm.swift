import ArgumentParser
import LatchkeyJWT

/// An `--alg` value: any signing algorithm Latchkey implements, matched without regard
/// to case (`es256`, `ES256`, `eddsa`). `none` is not accepted: no command signs or
/// verifies unsecured tokens.
struct AlgorithmArgument: ExpressibleByArgument, Sendable {
    let algorithm: JWSAlgorithm

    init?(argument: String) {
        guard
            let match = JWSAlgorithm(rawValue: argument)
                ?? JWSAlgorithm.signing.first(where: { $0.rawValue.lowercased() == argument.lowercased() }),
            match != .none
        else { return nil }
        algorithm = match
    }

    static var allValueStrings: [String] { JWSAlgorithm.signing.map(\.rawValue) }

    var isHMAC: Bool { [.hs256, .hs384, .hs512].contains(algorithm) }
}
