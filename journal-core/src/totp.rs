//! The second factor: time-based one-time codes (RFC 6238: HMAC-SHA-1, 6 digits,
//! 30-second steps), through totp-rs.
//!
//! A code is accepted one step either side of now (clocks drift), and only for a step
//! after the last one accepted for the user, which the store records atomically
//! (`Store::claim_totp_step`): a code seen by someone else cannot be used again, even
//! within its window, even by two requests at once.

use totp_rs::{Algorithm, Secret, TOTP};

const DIGITS: usize = 6;
const STEP_SECONDS: u64 = 30;

fn totp(secret_base32: &str, account: &str) -> Option<TOTP> {
    let secret = Secret::Encoded(secret_base32.to_owned()).to_bytes().ok()?;
    Some(TOTP::new_unchecked(
        Algorithm::SHA1,
        DIGITS,
        1,
        STEP_SECONDS,
        secret,
        Some("Journal".into()),
        account.to_owned(),
    ))
}

/// A new secret, base32 (160 bits, as RFC 4226 recommends).
pub(crate) fn new_secret() -> String {
    Secret::generate_secret().to_encoded().to_string()
}

/// The `otpauth://totp/Journal:<account>?secret=…` URL authenticator apps read.
pub(crate) fn otpauth_url(secret_base32: &str, account: &str) -> String {
    totp(secret_base32, account).map_or_else(String::new, |t| t.get_url())
}

/// `text` (an `otpauth:` URL) as a QR code: an SVG image, dark on white with its quiet
/// zone, at least 200 pixels wide, for the web setup to show as an image. Empty when
/// the text does not fit a QR code (an `otpauth:` URL always does).
pub(crate) fn qr_svg(text: &str) -> String {
    use qrcode::render::svg;
    qrcode::QrCode::new(text.as_bytes()).map_or_else(
        |_| String::new(),
        |code| {
            code.render::<svg::Color<'_>>()
                .min_dimensions(200, 200)
                .dark_color(svg::Color("#000000"))
                .light_color(svg::Color("#ffffff"))
                .quiet_zone(true)
                .build()
        },
    )
}

/// The step (30-second period since the epoch) whose code `code` is, within one step
/// of `now_seconds`; `None` when it matches none.
pub(crate) fn matching_step(secret_base32: &str, code: &str, now_seconds: u64) -> Option<u64> {
    let code = code.trim();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let totp = totp(secret_base32, "")?;
    let now = now_seconds / STEP_SECONDS;
    // Every candidate is computed and compared, so the time taken does not tell which
    // step matched.
    let mut found = None;
    for step in [now.saturating_sub(1), now, now + 1] {
        let expected = totp.generate(step * STEP_SECONDS);
        if constant_time_equal(expected.as_bytes(), code.as_bytes()) {
            found = Some(step);
        }
    }
    found
}

/// The code for `at_seconds` (tests and the CLI's own checks).
pub fn code_at(secret_base32: &str, at_seconds: u64) -> Option<String> {
    Some(totp(secret_base32, "")?.generate(at_seconds))
}

fn constant_time_equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_6238_vectors_and_one_step_either_side() {
        // RFC 6238, appendix B: SHA-1 with the ASCII key "12345678901234567890".
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
        assert_eq!(code_at(secret, 59).unwrap(), "287082");
        assert_eq!(code_at(secret, 1_111_111_109).unwrap(), "081804");
        let code = code_at(secret, 1_111_111_109).unwrap();
        assert_eq!(
            matching_step(secret, &code, 1_111_111_109),
            Some(37_037_036)
        );
        assert_eq!(
            matching_step(secret, &code, 1_111_111_109 + 30),
            Some(37_037_036)
        );
        assert_eq!(matching_step(secret, &code, 1_111_111_109 + 60), None);
        assert_eq!(matching_step(secret, "12345", 59), None);
        assert_eq!(matching_step(secret, "abcdef", 59), None);
    }
}
