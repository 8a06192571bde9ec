internal import Latchkey
internal import LatchkeyJSON

/// Where a Stytch one-time passcode goes.
public enum StytchOTPDelivery: Sendable, Hashable, CustomStringConvertible {
    /// A text message to a phone number in E.164 form (`+15555550123`).
    case sms(phoneNumber: String)
    /// A WhatsApp message to a phone number in E.164 form.
    case whatsApp(phoneNumber: String)
    /// An email to this address.
    case email(String)

    /// `sms`, `whatsapp` or `email`: the path segment and the name scripts see.
    public var channel: String {
        switch self {
        case .sms: "sms"
        case .whatsApp: "whatsapp"
        case .email: "email"
        }
    }

    /// The phone number or the address.
    public var destination: String {
        switch self {
        case .sms(let number), .whatsApp(let number): number
        case .email(let address): address
        }
    }

    public var description: String { "\(channel) to \(destination)" }
}

/// What Stytch answered a one-time passcode send: the `method_id` to authenticate the
/// code with (``StytchCredentials/otp(methodID:code:)``), and the user when it says.
public struct StytchSentOTP: Sendable, Hashable {
    /// The phone or email method the code was sent to.
    public var methodID: String
    /// The user the code logs in (created by the send when new), when the answer names it.
    public var userID: String?

    /// Creates one.
    public init(methodID: String, userID: String? = nil) {
        self.methodID = methodID
        self.userID = userID
    }
}

extension StytchProvider {
    /// The one-time passcode lifetimes Stytch accepts, in minutes (its default is 2).
    public static let otpExpirationBounds = 1...10

    /// Sends a one-time passcode that logs the user in, or signs them up when the phone
    /// number or address is new: `otps/sms/login_or_create`, `otps/whatsapp/login_or_create`
    /// or `otps/email/login_or_create`, as the official SDKs send them. Not a login: the
    /// session state does not change; finish with ``StytchCredentials/otp(methodID:code:)``
    /// and the code the user received.
    ///
    /// - Parameters:
    ///   - delivery: the channel and the phone number (E.164) or address.
    ///   - expirationMinutes: the code's lifetime, 1 to 10 minutes (Stytch's default: 2).
    ///   - loginTemplateID: email only: the template for an existing user's code.
    ///   - signupTemplateID: email only: the template for a new user's code.
    ///   - locale: the message's language (`en`, `es`, `pt-br`, …).
    /// - Throws: ``/Latchkey/AuthError``: `invalidArgument` for an expiration out of bounds
    ///   or a template with a phone channel, before any request; Stytch's refusal
    ///   (`invalidArgument` for a malformed phone number or address, `rateLimited`,
    ///   `transient`); `transient` for an answer without a `method_id`.
    public func sendOTP(
        _ delivery: StytchOTPDelivery, expirationMinutes: Int? = nil, loginTemplateID: String? = nil,
        signupTemplateID: String? = nil, locale: String? = nil
    ) async throws -> StytchSentOTP {
        let path: StytchPath
        var body: JSONObject
        switch delivery {
        case .sms(let number), .whatsApp(let number):
            guard loginTemplateID == nil, signupTemplateID == nil else {
                throw AuthError(.invalidArgument, "email templates are for one-time passcodes sent by email")
            }
            path = delivery.channel == "sms" ? .otpsSMSLoginOrCreate : .otpsWhatsAppLoginOrCreate
            body = ["phone_number": .string(number)]
        case .email(let address):
            path = .otpsEmailLoginOrCreate
            body = ["email": .string(address)]
            if let loginTemplateID { body["login_template_id"] = .string(loginTemplateID) }
            if let signupTemplateID { body["signup_template_id"] = .string(signupTemplateID) }
        }
        if let expirationMinutes {
            guard Self.otpExpirationBounds.contains(expirationMinutes) else {
                throw AuthError(
                    .invalidArgument,
                    "a one-time passcode lives \(Self.otpExpirationBounds.lowerBound) to "
                        + "\(Self.otpExpirationBounds.upperBound) minutes; got \(expirationMinutes)")
            }
            body["expiration_minutes"] = .number(Double(expirationMinutes))
        }
        if let locale { body["locale"] = .string(locale) }
        let data = try await calls.api.post(path, body, sessionToken: nil)
        guard let methodID = data.nonEmptyString("method_id"), !methodID.isEmpty else {
            throw StytchAPIClient.malformed(path, "the answer has no method_id")
        }
        return StytchSentOTP(methodID: methodID, userID: data.nonEmptyString("user_id"))
    }
}
