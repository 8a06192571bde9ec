/// One provider's emulated API: how it names routes, answers them, and shapes its errors.
protocol ProviderAPI: Sendable {
    /// The provider.
    var provider: EmulatorProvider { get }
    /// The route `request` addresses, or nil for an unknown route.
    func match(_ request: EmulatorRequest) -> RouteMatch?
    /// Answers a matched request. Input the provider would refuse becomes its error
    /// response here: nothing a client sends yields a 500.
    func respond(to request: EmulatorRequest, route: EmulatorRoute) async -> EmulatorResponse
    /// An error in the provider's shape. `error` is the provider's error name or code
    /// (nil: the usual one for `status`).
    func errorResponse(status: Int, error: String?, message: String?) -> EmulatorResponse
    /// A 200 response whose body is cut short: not parseable JSON.
    func malformedResponse() -> EmulatorResponse
}

extension ProviderAPI {
    /// The provider's 404 for a route it does not have.
    func notFound(_ request: EmulatorRequest) -> EmulatorResponse {
        errorResponse(status: 404, error: nil, message: "Unknown route: \(request.method) \(request.path)")
    }

    /// An error status whose body is an HTML page, as a proxy or a captcha wall answers.
    func nonJSONResponse(status: Int) -> EmulatorResponse {
        EmulatorResponse(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8")],
            body: Array("<html><body><h1>\(status)</h1><p>Captcha required</p></body></html>".utf8))
    }
}
