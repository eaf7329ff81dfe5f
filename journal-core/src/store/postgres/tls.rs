//! TLS for the PostgreSQL store, with libpq's `sslmode` meanings:
//!
//! | `sslmode` | TLS | server certificate |
//! |---|---|---|
//! | `disable` | never | – |
//! | `prefer` (default) | when the server offers it | not verified |
//! | `require` | always | not verified (unless `sslrootcert` is given) |
//! | `verify-ca`, `verify-full` | always | verified against `sslrootcert` or the web PKI roots, host name included |

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;

use crate::error::{StoreError, StoreResult};

/// How to use TLS, from the URL's `sslmode` and `sslrootcert`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    mode: Mode,
    root_cert: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    Disable,
    #[default]
    Prefer,
    Require,
    Verify,
}

impl TlsSettings {
    /// Takes `sslmode`/`sslrootcert` from the URL's parameters; tokio-postgres does not
    /// know the verifying modes, so they never reach it.
    pub(crate) fn take_from(params: &mut Vec<String>) -> StoreResult<TlsSettings> {
        let mut settings = TlsSettings::default();
        let mut rest = Vec::new();
        for pair in params.drain(..) {
            if let Some(mode) = pair.strip_prefix("sslmode=") {
                settings.mode = match mode {
                    "disable" => Mode::Disable,
                    "allow" | "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" | "verify-full" => Mode::Verify,
                    other => {
                        return Err(StoreError::internal(format!(
                            "sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"
                        )));
                    }
                };
            } else if let Some(path) = pair.strip_prefix("sslrootcert=") {
                settings.root_cert = Some(path.to_owned());
            } else {
                rest.push(pair);
            }
        }
        *params = rest;
        Ok(settings)
    }

    pub(crate) fn ssl_mode(&self) -> SslMode {
        match self.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::Verify => SslMode::Require,
        }
    }

    /// The rustls connector for these settings.
    pub(crate) fn connector(&self) -> StoreResult<tokio_postgres_rustls::MakeRustlsConnect> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(StoreError::internal)?;
        let verify = self.mode == Mode::Verify || self.root_cert.is_some();
        let config = if verify {
            let mut roots = RootCertStore::empty();
            match &self.root_cert {
                Some(path) => {
                    for cert in CertificateDer::pem_file_iter(path).map_err(|e| {
                        StoreError::internal(format!("cannot read sslrootcert {path}: {e}"))
                    })? {
                        let cert = cert.map_err(|e| {
                            StoreError::internal(format!("bad certificate in {path}: {e}"))
                        })?;
                        roots.add(cert).map_err(StoreError::internal)?;
                    }
                }
                None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        } else {
            // libpq's `require`/`prefer`: encrypt, but take the certificate on trust.
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(EncryptOnly(
                    provider.signature_verification_algorithms,
                )))
                .with_no_client_auth()
        };
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
    }
}

/// Accepts any certificate but still checks the handshake signatures, as libpq does for
/// `sslmode=require`: the link is encrypted, the server is not authenticated.
#[derive(Debug)]
struct EncryptOnly(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}
