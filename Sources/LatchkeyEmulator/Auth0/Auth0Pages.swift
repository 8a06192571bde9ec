/// The HTML pages of the emulated Universal Login: the login form of `/authorize` and
/// the device verification form of `/activate`. Plain forms with stable element IDs
/// (`username`, `password`, `submit`, `user_code`, `approve`, `deny`, `error`) so a test
/// can drive them with a real browser.
enum Auth0Pages {
    /// The login form; the authorization request's parameters ride along as hidden fields.
    static func login(parameters: [String: String], message: String?) -> EmulatorResponse {
        let hidden = parameters.keys.sorted().map { name in
            #"<input type="hidden" name="\#(escape(name))" value="\#(escape(parameters[name] ?? ""))">"#
        }.joined(separator: "\n")
        return page(
            "Log in",
            """
            <h1>Log in</h1>\(errorLine(message))
            <form method="post" action="/authorize">
            \(hidden)
            <label>Email <input id="username" name="username" type="email" autocomplete="username"></label>
            <label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label>
            <button id="submit" type="submit">Continue</button>
            </form>
            """)
    }

    /// The device verification form.
    static func activate(userCode: String, message: String?) -> EmulatorResponse {
        page(
            "Activate your device",
            """
            <h1>Device activation</h1>\(errorLine(message))
            <form method="post" action="/activate">
            <label>Code <input id="user_code" name="user_code" value="\(escape(userCode))"></label>
            <label>Email <input id="username" name="username" type="email"></label>
            <label>Password <input id="password" name="password" type="password"></label>
            <button id="approve" name="action" value="approve" type="submit">Confirm</button>
            <button id="deny" name="action" value="deny" type="submit">Cancel</button>
            </form>
            """)
    }

    /// A final message.
    static func done(_ title: String, _ text: String) -> EmulatorResponse {
        page(title, #"<h1 id="done">\#(escape(title))</h1><p>\#(escape(text))</p>"#)
    }

    /// Auth0's error page (a refused authorization or logout request): status 400, the
    /// reason in `#error`.
    static func error(_ message: String) -> EmulatorResponse {
        var response = page("Error", #"<h1>Oops!, something went wrong</h1><p id="error" role="alert">\#(escape(message))</p>"#)
        response.status = 400
        return response
    }

    private static func errorLine(_ message: String?) -> String {
        message.map { #"<p id="error" role="alert">\#(escape($0))</p>"# } ?? ""
    }

    private static func page(_ title: String, _ body: String) -> EmulatorResponse {
        HTML.page(title, body)
    }

    private static func escape(_ text: String) -> String {
        HTML.escape(text)
    }
}
