public import Foundation

/// A social.plus data region: the API lives at `https://apix.{region}.amity.co`.
public enum SocialPlusRegion: String, Sendable, Hashable, CaseIterable {
    /// Singapore (the default).
    case sg
    /// Europe.
    case eu
    /// United States.
    case us

    /// The region's API base URL.
    public var baseURL: URL {
        // Three fixed, well-formed literals: the fallback is never taken.
        URL(string: "https://apix.\(rawValue).amity.co") ?? URL(fileURLWithPath: "/")
    }
}
