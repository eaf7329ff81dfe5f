//! An S3-compatible bucket as a place for attachment files: the URL an operator gives
//! (`s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&addressing=path|virtual]`), checked
//! when it is parsed, and the object store it opens.
//!
//! Credentials never travel in the URL, which is printed and logged: they come from the
//! usual variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`),
//! or from a role the machine has, as every S3 client reads them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use object_store::prefix::PrefixStore;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};

/// How a bucket is addressed: in the path (`https://host/bucket/key`, what Garage, MinIO
/// and SeaweedFS answer by default) or in the host name (`https://bucket.host/key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addressing {
    /// `https://host/bucket/key`.
    Path,
    /// `https://bucket.host/key`.
    VirtualHost,
}

/// An S3-compatible bucket, and the folder inside it, where attachment files are kept.
#[derive(Clone, PartialEq, Eq)]
pub struct Bucket {
    name: String,
    prefix: Option<String>,
    endpoint: Option<String>,
    region: Option<String>,
    addressing: Option<Addressing>,
}

impl Bucket {
    /// Parses `s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&addressing=path|virtual]`.
    /// An option not given is read from the usual variables (`AWS_ENDPOINT_URL`,
    /// `AWS_REGION`, `AWS_VIRTUAL_HOSTED_STYLE_REQUEST`); without any, the bucket is on
    /// AWS in `us-east-1`, addressed in the path.
    pub fn parse(given: &str) -> Result<Bucket, String> {
        let url = url::Url::parse(given.trim()).map_err(|e| {
            format!(
                "{}: not a bucket URL ({e}); use s3://BUCKET[/PREFIX]",
                redacted(given)
            )
        })?;
        if url.scheme() != "s3" {
            return Err(format!("{given}: a bucket URL starts with s3://"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!(
                "{}: credentials never go in the URL, which is logged; set \
                 AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                redacted(given)
            ));
        }
        let name = url.host_str().unwrap_or_default().to_owned();
        if !is_bucket_name(&name) {
            return Err(format!(
                "{given}: \"{name}\" is not a bucket name (3 to 63 lower-case letters, digits, \
                 dots and hyphens, starting and ending with a letter or digit)"
            ));
        }
        // Read as given: the URL parser folds `a/../b` into `b` without a word.
        let as_given = given
            .trim()
            .split_once("://")
            .map_or("", |(_, rest)| rest.split(['?', '#']).next().unwrap_or(""));
        let as_given = as_given.split_once('/').map_or("", |(_, p)| p);
        let prefix = url.path().trim_matches('/');
        let prefix = if as_given.trim_matches('/').is_empty() {
            None
        } else if as_given
            .trim_matches('/')
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return Err(format!(
                "{given}: the folder inside the bucket (\"{as_given}\") has an empty, . or .. part"
            ));
        } else {
            Some(prefix.to_owned())
        };
        let mut bucket = Bucket {
            name,
            prefix,
            endpoint: None,
            region: None,
            addressing: None,
        };
        for (key, value) in url.query_pairs() {
            match &*key {
                "endpoint" => {
                    let endpoint = url::Url::parse(&value)
                        .ok()
                        .filter(|e| matches!(e.scheme(), "http" | "https") && e.has_host())
                        .ok_or_else(|| {
                            format!(
                                "{given}: endpoint \"{value}\" is not an http:// or https:// URL"
                            )
                        })?;
                    if !endpoint.username().is_empty() || endpoint.password().is_some() {
                        return Err(format!(
                            "{}: credentials never go in the endpoint; set \
                             AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                            redacted(given)
                        ));
                    }
                    bucket.endpoint = Some(value.trim_end_matches('/').to_owned());
                }
                "region" if !value.trim().is_empty() => bucket.region = Some(value.into_owned()),
                "addressing" => {
                    bucket.addressing = Some(match &*value {
                        "path" => Addressing::Path,
                        "virtual" => Addressing::VirtualHost,
                        other => {
                            return Err(format!(
                                "{given}: addressing \"{other}\" is neither path nor virtual"
                            ));
                        }
                    });
                }
                "access_key_id" | "secret_access_key" | "session_token" | "token" => {
                    return Err(format!(
                        "{}: credentials never go in the URL, which is logged; set \
                         AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                        redacted(given)
                    ));
                }
                other => {
                    return Err(format!(
                        "{given}: unknown option \"{other}\" (known: endpoint, region, addressing)"
                    ));
                }
            }
        }
        Ok(bucket)
    }

    /// The bucket's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The folder inside the bucket, when there is one.
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The object store: requests signed with the credentials of the environment, and
    /// bounded in time, so that a store that stops answering fails a request in seconds
    /// (answered 503) instead of holding it for minutes.
    pub(crate) fn open(&self) -> Result<Arc<dyn ObjectStore>, object_store::Error> {
        let client = ClientOptions::new()
            .with_connect_timeout(Duration::from_secs(5))
            // A part of a multipart upload is a few MiB: a minute is a slow link's time.
            .with_timeout(Duration::from_secs(60));
        let retry = RetryConfig {
            backoff: BackoffConfig::default(),
            max_retries: 3,
            retry_timeout: Duration::from_secs(15),
        };
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&self.name)
            .with_client_options(client)
            .with_retry(retry);
        if let Some(endpoint) = &self.endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        if let Some(region) = &self.region {
            builder = builder.with_region(region);
        }
        if let Some(addressing) = self.addressing {
            builder =
                builder.with_virtual_hosted_style_request(addressing == Addressing::VirtualHost);
        }
        let store = builder.build()?;
        Ok(match &self.prefix {
            Some(prefix) => Arc::new(PrefixStore::new(store, prefix.as_str())),
            None => Arc::new(store),
        })
    }
}

/// The URL, as it parses back: safe to print, it holds no secret.
impl fmt::Display for Bucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s3://{}", self.name)?;
        if let Some(prefix) = &self.prefix {
            write!(f, "/{prefix}")?;
        }
        let mut options = url::form_urlencoded::Serializer::new(String::new());
        if let Some(endpoint) = &self.endpoint {
            options.append_pair("endpoint", endpoint);
        }
        if let Some(region) = &self.region {
            options.append_pair("region", region);
        }
        match self.addressing {
            Some(Addressing::Path) => {
                options.append_pair("addressing", "path");
            }
            Some(Addressing::VirtualHost) => {
                options.append_pair("addressing", "virtual");
            }
            None => {}
        }
        let options = options.finish();
        if !options.is_empty() {
            write!(f, "?{options}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Bucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bucket({self})")
    }
}

/// S3's rule for names a bucket may take, which every compatible store accepts.
fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'.' || *b == b'-')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
}

/// A URL with whatever follows `s3://` cut, for messages about a URL that holds a secret.
fn redacted(given: &str) -> String {
    match given.trim().split_once("://") {
        Some((scheme, _)) => format!("{scheme}://…"),
        None => "the bucket URL".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_url_parses_back_to_itself() {
        for given in [
            "s3://journal",
            "s3://journal/files/2026",
            "s3://journal?endpoint=http%3A%2F%2F127.0.0.1%3A3900&region=garage&addressing=path",
            "s3://my.bucket-1?addressing=virtual",
        ] {
            let bucket = Bucket::parse(given).unwrap();
            assert_eq!(
                Bucket::parse(&bucket.to_string()).unwrap(),
                bucket,
                "{given}"
            );
        }
        let bucket = Bucket::parse("s3://journal/a/b/?endpoint=http://h:9000/").unwrap();
        assert_eq!(bucket.prefix(), Some("a/b"));
        assert_eq!(bucket.endpoint.as_deref(), Some("http://h:9000"));
    }

    #[test]
    fn a_bucket_url_with_a_secret_or_a_mistake_is_refused_without_echoing_the_secret() {
        for given in [
            "s3://key:hunter2@journal",
            "s3://journal?secret_access_key=hunter2",
            "s3://journal?endpoint=http://key:hunter2@host",
        ] {
            let why = Bucket::parse(given).unwrap_err();
            assert!(!why.contains("hunter2"), "{why}");
            assert!(why.contains("AWS_SECRET_ACCESS_KEY"), "{why}");
        }
        for given in [
            "journal",
            "http://journal",
            "s3://Journal",
            "s3://ab",
            "s3://-journal",
            "s3://journal/../x",
            "s3://journal?endpoint=ftp://host",
            "s3://journal?addressing=sideways",
            "s3://journal?colour=blue",
        ] {
            assert!(Bucket::parse(given).is_err(), "{given}");
        }
    }
}
