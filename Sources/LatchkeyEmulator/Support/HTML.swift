/// The emulators' HTML pages (login, consent, device forms) escape every value they show.
enum HTML {
    /// `text` with `& < > " '` as entities, safe in element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A complete page: status 200, `no-store`.
    static func page(_ title: String, _ body: String) -> EmulatorResponse {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body>\(body)</body></html>
            """
        return EmulatorResponse(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(html.utf8))
    }
}
