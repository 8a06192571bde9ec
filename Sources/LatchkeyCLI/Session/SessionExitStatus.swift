import Latchkey
import LatchkeyCLIBase

/// What a `latchkey session` command's exit status means, with sysexits(3) values where
/// one fits, so that a script can tell "log in again" from "try again later".
enum SessionExitStatus {
    /// Success (for `status`: somebody is logged in).
    static let success: Int32 = 0
    /// Nobody is logged in, or the provider ended the session (`status` says why).
    static let notLoggedIn: Int32 = 1
    /// EX_USAGE: the command line is wrong.
    static let usage: Int32 = 64
    /// EX_NOINPUT: a secret or code could not be read (no terminal, nothing on the input).
    static let noInput: Int32 = 66
    /// EX_SOFTWARE: a failure of the tool itself.
    static let software: Int32 = 70
    /// EX_IOERR: the secret store could not be read or written.
    static let storage: Int32 = 74
    /// EX_TEMPFAIL: the provider could not be reached, failed, or is rate limiting: retry later.
    static let retryLater: Int32 = 75
    /// EX_NOPERM: the provider refused the credentials, the code or the request.
    static let refused: Int32 = 77
    /// EX_CONFIG: the configuration is missing or wrong.
    static let configuration: Int32 = 78

    /// The table `--help` shows.
    static let help = """
        Exit status:
          0   success (status: somebody is logged in)
          1   nobody is logged in, or the provider ended the session (status says why)
          64  usage error
          66  a secret or code could not be read (no terminal, nothing on the input)
          70  internal error
          74  the secret store could not be read or written
          75  the provider is unreachable, failing or rate limiting: retry later
          77  the provider refused the credentials, the code or the request
          78  configuration error
        """

    /// The exit status of a failure: the one mapping from ``AuthError`` codes. A verdict
    /// that ends a session is a refusal of the credentials while logging in, and an
    /// ended session otherwise.
    static func of(_ error: AuthError, loggingIn: Bool) -> Int32 {
        switch error.code {
        case .unrecoverable, .terminated, .needsUserAction:
            loggingIn ? refused : notLoggedIn
        case .notLoggedIn:
            notLoggedIn
        case .transient, .rateLimited, .renewAndRecheck:
            retryLater
        case .unauthorizedAfterRenewal:
            refused
        case .invalidArgument:
            // The provider turning down what was asked (Auth0 `access_denied` for a scope)
            // is a refusal; an argument refused before any request is a usage error.
            error.httpStatus.map { $0 == 401 || $0 == 403 } == true ? refused : usage
        case .unsupportedCredentials, .largeMinTTL:
            usage
        case .configuration, .vaultIncompatible:
            configuration
        case .storage:
            storage
        default:
            // `invalidState`, `cancelled`: the tool's own sequencing went wrong.
            software
        }
    }
}
