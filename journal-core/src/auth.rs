//! Password hashing (argon2id) and tokens (HS256 JWT).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use argon2::{Algorithm as Argon2Algorithm, Argon2, Params, Version};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::{Password, Timestamp, UserId};
use crate::error::{Error, Result, TokenRejection, ValidationError};

/// Shortest JWT secret accepted from configuration, in bytes.
pub const MIN_SECRET_BYTES: usize = 32;

/// The HS256 signing secret. `Debug` never shows it.
#[derive(Clone)]
pub struct JwtSecret(Arc<[u8]>);

impl std::fmt::Debug for JwtSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtSecret(<redacted>)")
    }
}

impl JwtSecret {
    /// A secret given by configuration: at least 32 bytes, so it cannot be guessed.
    pub fn new(bytes: impl AsRef<[u8]>) -> std::result::Result<JwtSecret, ValidationError> {
        let bytes = bytes.as_ref();
        if bytes.len() < MIN_SECRET_BYTES {
            return Err(ValidationError::new(
                "jwtSecret",
                format!("must be at least {MIN_SECRET_BYTES} bytes long"),
            ));
        }
        Ok(JwtSecret(bytes.into()))
    }

    /// A fresh random 64-byte secret.
    pub fn generate() -> JwtSecret {
        JwtSecret(Self::generate_bytes().as_slice().into())
    }

    pub(crate) fn generate_bytes() -> [u8; 64] {
        use rand::RngCore as _;
        let mut bytes = [0u8; 64];
        rand::rng().fill_bytes(&mut bytes);
        bytes
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The claims we put in a token: exactly these four.
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    iat: i64,
    exp: i64,
    jti: String,
    /// When the sign-in this token continues happened, in milliseconds: set on a token
    /// a web session renewed, whose own issue time says nothing of a sign-in. A login's
    /// token has none (it is its issue time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signed_in_ms: Option<i64>,
}

/// What a verified token says: whose it is, its id and when it was issued and expires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenClaims {
    /// The user.
    pub user_id: UserId,
    /// The token's id (a UUIDv7, so it also tells when the token was issued, to the
    /// millisecond).
    pub token_id: String,
    /// Issue time, from the `jti`, in milliseconds.
    pub issued_at: Timestamp,
    /// Expiry time.
    pub expires_at: Timestamp,
    /// When the person signed in with their password: the issue time of a login's
    /// token, and the sign-in that began the session of one a web session renewed.
    /// What "a recent sign-in" is measured by.
    pub signed_in_at: Timestamp,
}

/// Issues and checks HS256 tokens.
#[derive(Clone)]
pub(crate) struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl TokenKeys {
    pub(crate) fn new(secret: &JwtSecret, ttl: Duration) -> TokenKeys {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 5;
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "sub"]);
        TokenKeys {
            encoding: EncodingKey::from_secret(secret.bytes()),
            decoding: DecodingKey::from_secret(secret.bytes()),
            validation,
            ttl,
        }
    }

    /// A token for `user` issued at `at`, which its id (a UUIDv7) carries to the
    /// millisecond: a login's.
    pub(crate) fn issue_at(&self, user: &UserId, at: Timestamp) -> Result<(String, TokenClaims)> {
        self.issue(user, at, None)
    }

    /// A token a web session renewed at `at`, for the sign-in at `signed_in_at`.
    pub(crate) fn issue_renewed(
        &self,
        user: &UserId,
        at: Timestamp,
        signed_in_at: Timestamp,
    ) -> Result<(String, TokenClaims)> {
        self.issue(user, at, Some(signed_in_at))
    }

    fn issue(
        &self,
        user: &UserId,
        at: Timestamp,
        signed_in_at: Option<Timestamp>,
    ) -> Result<(String, TokenClaims)> {
        let ms = u64::try_from(at.as_millis())
            .map_err(|_| Error::internal("a token from before 1970"))?;
        let jti = Uuid::new_v7(uuid::Timestamp::from_unix(
            uuid::NoContext,
            ms / 1000,
            u32::try_from(ms % 1000).unwrap_or(0) * 1_000_000,
        ));
        let issued_ms =
            uuid_millis(&jti).ok_or_else(|| Error::internal("UUIDv7 without a timestamp"))?;
        let iat = issued_ms.div_euclid(1000);
        let exp = iat + i64::try_from(self.ttl.as_secs()).unwrap_or(i64::MAX / 2);
        let claims = Claims {
            sub: user.to_string(),
            iat,
            exp,
            jti: jti.hyphenated().to_string(),
            signed_in_ms: signed_in_at.map(|t| t.as_millis()),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(Error::internal)?;
        Ok((
            token,
            TokenClaims {
                user_id: *user,
                token_id: claims.jti,
                issued_at: Timestamp::from_millis(issued_ms),
                expires_at: Timestamp::from_millis(exp.saturating_mul(1000)),
                signed_in_at: signed_in_at.unwrap_or(Timestamp::from_millis(issued_ms)),
            },
        ))
    }

    /// Checks signature, algorithm and time claims. Whether the token was revoked or its
    /// user still exists is the caller's business (it needs the store).
    pub(crate) fn verify(&self, token: &str) -> std::result::Result<TokenClaims, TokenRejection> {
        // A legitimate token is a few hundred bytes; don't even parse a megabyte.
        if token.len() > 4096 {
            return Err(TokenRejection::Invalid);
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => TokenRejection::Expired,
                ErrorKind::ImmatureSignature => TokenRejection::NotYetValid,
                _ => TokenRejection::Invalid,
            })?;
        let claims = data.claims;
        let user_id: UserId = claims.sub.parse().map_err(|_| TokenRejection::Invalid)?;
        let jti = Uuid::try_parse(&claims.jti).map_err(|_| TokenRejection::Invalid)?;
        let issued_ms = uuid_millis(&jti).ok_or(TokenRejection::Invalid)?;
        let now = chrono::Utc::now().timestamp();
        if claims.iat > now + self.validation.leeway as i64 {
            return Err(TokenRejection::NotYetValid);
        }
        // A sign-in never after the token's own issue: a later one would be a forgery
        // (the signature already rules that out) or a bug.
        let signed_in_ms = claims.signed_in_ms.unwrap_or(issued_ms).min(issued_ms);
        Ok(TokenClaims {
            user_id,
            token_id: jti.hyphenated().to_string(),
            issued_at: Timestamp::from_millis(issued_ms),
            expires_at: Timestamp::from_millis(claims.exp.saturating_mul(1000)),
            signed_in_at: Timestamp::from_millis(signed_in_ms),
        })
    }
}

/// `n` random bytes as lower-case hex.
pub(crate) fn random_hex(n: usize) -> String {
    use rand::RngCore as _;
    let mut bytes = vec![0u8; n];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn uuid_millis(id: &Uuid) -> Option<i64> {
    let (secs, nanos) = id.get_timestamp()?.to_unix();
    Some(i64::try_from(secs).ok()? * 1000 + i64::from(nanos / 1_000_000))
}

/// Hashes and verifies passwords with argon2id on threads of its own, a fixed few: each
/// hash takes its 19 MiB of memory and a core for a while, so a burst of logins queues for those
/// threads instead of exhausting memory or taking every core from other requests. Fixed
/// threads also keep memory flat: the allocator keeps a pool per thread that ever
/// hashed, and on the shared blocking pool that was hundreds of them.
#[derive(Clone)]
pub(crate) struct PasswordHasher {
    jobs: std::sync::mpsc::Sender<HashJob>,
}

type HashJob = Box<dyn FnOnce() + Send>;

fn argon2() -> Argon2<'static> {
    // OWASP's recommendation for argon2id: 19 MiB, 2 iterations, 1 lane.
    let params = Params::new(19_456, 2, 1, None).expect("constant argon2 parameters are valid");
    Argon2::new(Argon2Algorithm::Argon2id, Version::V0x13, params)
}

/// A hash of a random password, verified against when the e-mail is unknown so that a
/// failed login costs the same whether or not the account exists.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
        argon2()
            .hash_password(random_hex(16).as_bytes(), &salt)
            .expect("hashing a short random password succeeds")
            .to_string()
    })
}

impl PasswordHasher {
    /// Starts `threads` hashing threads; they end when the last handle is dropped.
    pub(crate) fn new(threads: usize) -> Result<PasswordHasher> {
        let (jobs, queue) = std::sync::mpsc::channel::<HashJob>();
        let queue = Arc::new(std::sync::Mutex::new(queue));
        for i in 0..threads.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("journal-argon2-{i}"))
                .spawn(move || {
                    loop {
                        // Hold the lock only to take a job, not while hashing.
                        let job = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(poisoned) => poisoned.into_inner().recv(),
                        };
                        match job {
                            // A panicking job drops its reply (its caller gets an error);
                            // the thread lives on for the next one.
                            Ok(job) => {
                                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                            }
                            Err(_) => break,
                        }
                    }
                })
                .map_err(Error::internal)?;
        }
        Ok(PasswordHasher { jobs })
    }

    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        let (reply, result) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move || {
                let _ = reply.send(work());
            }))
            .map_err(|_| Error::internal("the password hashing threads have stopped"))?;
        result
            .await
            .map_err(|_| Error::internal("a password hashing thread failed"))
    }

    pub(crate) async fn hash(&self, password: &Password) -> Result<String> {
        let plain = password.expose().to_owned();
        self.run(move || {
            let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
            argon2()
                .hash_password(plain.as_bytes(), &salt)
                .map(|h| h.to_string())
                .map_err(|e| Error::internal(e.to_string()))
        })
        .await?
    }

    /// True when `plain` matches `hash`; with `None` it checks against the dummy hash and
    /// returns false, taking as long as a real check.
    pub(crate) async fn verify(&self, hash: Option<String>, plain: &str) -> Result<bool> {
        // Anything longer than the policy allows can never match: refuse it without hashing.
        if plain.len() > crate::domain::PASSWORD_MAX_CHARS * 4 {
            return Ok(false);
        }
        let plain = plain.to_owned();
        self.run(move || {
            let known = hash.is_some();
            let hash = hash.unwrap_or_else(|| dummy_hash().to_owned());
            let Ok(parsed) = PasswordHash::new(&hash) else {
                return false;
            };
            argon2().verify_password(plain.as_bytes(), &parsed).is_ok() && known
        })
        .await
    }

    /// Computes the dummy hash now rather than during the first failed login.
    pub(crate) async fn warm_up(&self) -> Result<()> {
        self.run(|| {
            dummy_hash();
        })
        .await
    }
}
