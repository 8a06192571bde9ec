import Foundation
import LatchkeyJSON

/// Consumer one-time passcode sends: `otps/sms/login_or_create`,
/// `otps/whatsapp/login_or_create`, `otps/email/login_or_create`. Strict as Stytch is:
/// an E.164 phone number, an address of email shape, a lifetime of 1 to 10 minutes
/// (default 2), and a send limit per destination.
extension StytchAPI {
    /// One-time passcode lifetimes Stytch accepts, in minutes.
    static let otpExpirationRange = 1...10
    /// Stytch's default one-time passcode lifetime, in minutes.
    static let otpDefaultExpiration = 2

    /// Answers the OTP send routes; `nil` for another route.
    func handleOTPSend(_ route: EmulatorRoute, fields: JSONObject, requestID: String) async throws -> EmulatorResponse? {
        let channel: String
        let destination: String
        switch route {
        case Self.otpsSMSLoginOrCreate, Self.otpsWhatsAppLoginOrCreate:
            channel = route == Self.otpsSMSLoginOrCreate ? "sms" : "whatsapp"
            guard let number = fields.nonEmptyString("phone_number") else { throw StytchError.missing("phone_number") }
            guard Self.isE164(number) else {
                throw StytchError(
                    status: 400, type: "invalid_phone_number",
                    message: "The phone number is not valid: use E.164 format (+1XXXXXXXXXX).")
            }
            destination = number
        case Self.otpsEmailLoginOrCreate:
            channel = "email"
            guard let email = fields.nonEmptyString("email") else { throw StytchError.missing("email") }
            guard Self.isEmailShaped(email) else { throw StytchError(status: 400, type: "invalid_email", message: "The email address is not valid.") }
            destination = email
        default:
            return nil
        }
        var minutes = Self.otpDefaultExpiration
        if let value = fields["expiration_minutes"], value != .null {
            guard let given = fields.integerOrNumericString("expiration_minutes"), Self.otpExpirationRange.contains(given) else {
                // The error type is the plausible form (unconfirmed).
                throw StytchError(
                    status: 400, type: "invalid_expiration_minutes", message: "expiration_minutes must be between 1 and 10.",
                    details: ["field": "expiration_minutes", "minimum": 1, "maximum": 10])
            }
            minutes = given
        }
        let sent = try await store.sendOTP(channel: channel, destination: destination, lifetime: TimeInterval(minutes) * 60)
        // `method_id` is what the SDKs read; `user_id` and `user_created` are the backend
        // API's members, assumed on the SDK route too (unconfirmed).
        return .json([
            "data": .object([
                "request_id": .string(requestID), "status_code": 200, "method_id": .string(sent.methodID),
                "user_id": .string(sent.user.userID), "user_created": .bool(sent.created),
            ])
        ])
    }

    /// `+` then 2 to 15 digits, the first not 0.
    static func isE164(_ number: String) -> Bool {
        let bytes = Array(number.utf8)
        guard bytes.count >= 3, bytes.count <= 16, bytes[0] == UInt8(ascii: "+"), bytes[1] != UInt8(ascii: "0") else { return false }
        return bytes.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// `local@domain.tld`: one `@`, something before it, a dot in the domain, no spaces.
    static func isEmailShaped(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, email.count <= 254, !email.contains(where: \.isWhitespace) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }
}
