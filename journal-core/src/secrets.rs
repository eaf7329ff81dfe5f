//! Secrets a user holds and the server keeps only a hash of: personal access tokens,
//! invite codes and recovery codes.
//!
//! Each has at least 128 bits from the operating system's generator, so one round of
//! SHA-256 is enough to keep it: nobody can guess a preimage, and a lookup by hash is
//! an index probe. (Passwords, which people choose, get argon2id instead.)

use rand::RngCore as _;
use sha2::{Digest as _, Sha256};

/// What a personal access token starts with, so that a bearer value can be told from a
/// login token (a JWT) without trying it, and found by secret scanners.
pub(crate) const ACCESS_TOKEN_PREFIX: &str = "jpat_";

/// The SHA-256 of a secret, hex: what the store keeps and looks up.
pub(crate) fn hash(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// `n` random bytes as lower-case base32 (no padding): letters and digits only, easy
/// to copy, no characters that need escaping anywhere.
fn random_base32(bytes: usize) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut raw = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut raw);
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for byte in raw {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((buffer >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// A new personal access token: `jpat_` and 160 random bits.
pub(crate) fn new_access_token() -> String {
    format!("{ACCESS_TOKEN_PREFIX}{}", random_base32(20))
}

/// A new web session's refresh token: 256 random bits, letters and digits only (a
/// cookie's value as it is).
pub(crate) fn new_session_secret() -> String {
    random_base32(32)
}

/// A new invite code: 120 random bits in groups of four (`abcd-efgh-…`, six groups).
pub(crate) fn new_invite_code() -> String {
    grouped(&random_base32(15))
}

/// A new recovery code: 80 random bits, `abcd-efgh-ijkl-mnop`.
pub(crate) fn new_recovery_code() -> String {
    grouped(&random_base32(10))
}

fn grouped(text: &str) -> String {
    text.as_bytes()
        .chunks(4)
        .map(|c| std::str::from_utf8(c).expect("base32 is ASCII"))
        .collect::<Vec<_>>()
        .join("-")
}

/// A code as people type it back: case, spaces and dashes do not matter.
pub(crate) fn normalize_code(code: &str) -> String {
    grouped(
        &code
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_random_and_typed_back_in_any_form() {
        let a = new_recovery_code();
        assert_eq!(a.len(), 19, "{a}");
        assert_eq!(new_invite_code().len(), 29);
        assert_ne!(a, new_recovery_code());
        assert_eq!(normalize_code(&a.to_uppercase().replace('-', " ")), a);
        assert!(new_access_token().starts_with("jpat_"));
        assert_eq!(new_access_token().len(), 5 + 32);
        assert_eq!(hash("x").len(), 64);
    }
}
