public import AsyncHTTPClient
internal import Foundation
public import Latchkey
internal import LatchkeyAsyncHTTPClient
internal import NIOPosix

/// The HTTP transports the suites run on: the contract suites take each in turn, and a
/// harness that takes its transport from ``selected`` runs on either through one
/// environment variable, `LATCHKEY_TEST_TRANSPORT=async-http-client`; unset, or
/// `urlsession`, keeps Foundation's URLSession.
public enum TestTransport: String, CaseIterable, Sendable, CustomStringConvertible {
    case urlSession = "urlsession"
    case asyncHTTPClient = "async-http-client"

    /// The environment variable that chooses the transport.
    public static let environmentVariable = "LATCHKEY_TEST_TRANSPORT"

    /// The transport the environment chooses; an unknown value stops the run rather than
    /// quietly testing the default.
    public static let selected: TestTransport = {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty else { return .urlSession }
        guard let transport = TestTransport(rawValue: value.lowercased()) else {
            fatalError("\(environmentVariable)=\(value): expected one of \(allCases.map(\.rawValue))")
        }
        return transport
    }()

    /// One client for the whole test process, as an app shares one: never shut down (the
    /// process ends first), made with the transport's recommended configuration.
    public static let sharedClient = HTTPClient(
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
        configuration: AsyncHTTPClientTransport.recommendedConfiguration())

    /// A transport of this kind with these settings.
    public func make(
        defaultTimeout: Duration = .seconds(30),
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize
    ) -> any HTTPTransport {
        switch self {
        case .urlSession:
            URLSessionTransport(defaultTimeout: defaultTimeout, maximumResponseSize: maximumResponseSize)
        case .asyncHTTPClient:
            AsyncHTTPClientTransport(client: Self.sharedClient, defaultTimeout: defaultTimeout, maximumResponseSize: maximumResponseSize)
        }
    }

    /// A transport of the ``selected`` kind.
    public static func make(defaultTimeout: Duration = .seconds(30)) -> any HTTPTransport {
        selected.make(defaultTimeout: defaultTimeout)
    }

    public var description: String { rawValue }
}
