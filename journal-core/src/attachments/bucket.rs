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

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
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
    ///
    /// A refusal never repeats the URL, nor any value in it: a URL that fails to parse
    /// may hold a secret anywhere.
    pub fn parse(given: &str) -> Result<Bucket, String> {
        const CREDENTIALS: &str = "credentials never go in the bucket URL, which is logged: \
             set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";
        let refuse = |why: &str| Err(format!("the bucket URL: {why}"));
        let given = given.trim();
        let Some((scheme, rest)) = given.split_once("://") else {
            return refuse("use s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME]");
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return refuse(CREDENTIALS);
        }
        let url = match url::Url::parse(given) {
            Ok(url) => url,
            Err(e) => return refuse(&format!("it does not parse ({e})")),
        };
        if url
            .query_pairs()
            .any(|(key, _)| looks_like_a_credential(&key))
        {
            return refuse(CREDENTIALS);
        }
        if scheme != "s3" {
            return refuse("it must start with s3://");
        }
        let name = url.host_str().unwrap_or_default().to_owned();
        if !is_bucket_name(&name) {
            return refuse(
                "the bucket's name must be 3 to 63 lower-case letters, digits, dots and \
                 hyphens, starting and ending with a letter or digit",
            );
        }
        // Read as given: the URL parser folds `a/../b` into `b` without a word.
        let as_given = rest.split(['?', '#']).next().unwrap_or("");
        let as_given = as_given
            .split_once('/')
            .map_or("", |(_, p)| p)
            .trim_matches('/');
        let prefix = if as_given.is_empty() {
            None
        } else if as_given
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return refuse("the folder inside the bucket has an empty, . or .. part");
        } else {
            Some(url.path().trim_matches('/').to_owned())
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
                    let Some(endpoint) = url::Url::parse(&value)
                        .ok()
                        .filter(|e| matches!(e.scheme(), "http" | "https") && e.has_host())
                    else {
                        return refuse("endpoint is not an http:// or https:// URL");
                    };
                    if !endpoint.username().is_empty() || endpoint.password().is_some() {
                        return refuse(CREDENTIALS);
                    }
                    bucket.endpoint = Some(value.trim_end_matches('/').to_owned());
                }
                "region" if !value.trim().is_empty() => bucket.region = Some(value.into_owned()),
                "addressing" => {
                    bucket.addressing = Some(match &*value {
                        "path" => Addressing::Path,
                        "virtual" => Addressing::VirtualHost,
                        _ => return refuse("addressing is neither path nor virtual"),
                    });
                }
                // Not repeated: whatever was typed there may be a secret.
                _ => return refuse("an option is not known (known: endpoint, region, addressing)"),
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
        // No bound on a whole request: a large file streams to a slow reader for as long
        // as it takes. A connection that moves no byte for 30 s is dead, though.
        let client = ClientOptions::new()
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout_disabled()
            .with_read_timeout(Duration::from_secs(30));
        let retry = RetryConfig {
            backoff: BackoffConfig::default(),
            max_retries: 3,
            retry_timeout: Duration::from_secs(15),
        };
        let mut builder = AmazonS3Builder::new()
            .with_client_options(client)
            .with_retry(retry);
        // The variables every S3 client reads (AmazonS3Builder::from_env's loop, after
        // the bounds above, which it would otherwise replace): credentials, endpoint,
        // region, AWS_ALLOW_HTTP, a proxy, and bounds an operator sets.
        for (key, value) in std::env::vars() {
            if key.starts_with("AWS_")
                && let Ok(key) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>()
            {
                builder = builder.with_config(key, value);
            }
        }
        builder = builder.with_bucket_name(&self.name);
        if let Some(endpoint) = &self.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        if let Some(region) = &self.region {
            builder = builder.with_region(region);
        }
        if let Some(addressing) = self.addressing {
            builder =
                builder.with_virtual_hosted_style_request(addressing == Addressing::VirtualHost);
        }
        let endpoint = builder.get_config_value(&AmazonS3ConfigKey::Endpoint);
        // A plain-HTTP endpoint, from the URL or from AWS_ENDPOINT_URL, is what the
        // operator asked for: a store on the servers' own network.
        if endpoint.as_ref().is_some_and(|e| e.starts_with("http://")) {
            builder = builder.with_allow_http(true);
        }
        // Addressed by host name, object_store takes the endpoint as the bucket's own
        // (`https://BUCKET.host`); operators give the store's (`https://host`).
        let virtual_host = builder
            .get_config_value(&AmazonS3ConfigKey::VirtualHostedStyleRequest)
            .is_some_and(|v| v == "true");
        if virtual_host && let Some(endpoint) = endpoint {
            builder = builder.with_endpoint(bucket_host(&endpoint, &self.name));
        }
        let store = builder.build()?;
        Ok(match &self.prefix {
            Some(prefix) => Arc::new(PrefixStore::new(store, prefix.as_str())),
            None => Arc::new(store),
        })
    }

    /// Whether the two hold objects in common: the same bucket on the same endpoint, one
    /// folder inside the other (or both the whole bucket).
    pub fn overlaps(&self, other: &Bucket) -> bool {
        if self.name != other.name || self.endpoint != other.endpoint {
            return false;
        }
        let inside = |outer: &Option<String>, inner: &Option<String>| match (outer, inner) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(outer), Some(inner)) => inner == outer || inner.starts_with(&format!("{outer}/")),
        };
        inside(&self.prefix, &other.prefix) || inside(&other.prefix, &self.prefix)
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

/// The endpoint of the bucket `name` on the store at `endpoint`, addressed by host
/// name: `https://host:port` → `https://name.host:port`, unless it is that already.
fn bucket_host(endpoint: &str, name: &str) -> String {
    let Ok(mut url) = url::Url::parse(endpoint) else {
        return endpoint.to_owned();
    };
    let Some(host) = url.host_str().map(str::to_owned) else {
        return endpoint.to_owned();
    };
    if host.starts_with(&format!("{name}."))
        || url.set_host(Some(&format!("{name}.{host}"))).is_err()
    {
        return endpoint.to_owned();
    }
    url.as_str().trim_end_matches('/').to_owned()
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

/// An option's name that says it holds a secret (`secret_access_key`,
/// `aws_session_token`, `password`…).
fn looks_like_a_credential(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["secret", "key", "token", "password", "credential"]
        .iter()
        .any(|word| key.contains(word))
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
        let whole = Bucket::parse("s3://journal").unwrap();
        let inside = Bucket::parse("s3://journal/journal").unwrap();
        let beside = Bucket::parse("s3://journal/journalled").unwrap();
        assert!(whole.overlaps(&inside) && inside.overlaps(&whole));
        assert!(!inside.overlaps(&beside));
        let elsewhere = Bucket::parse("s3://journal?endpoint=http://other:9000").unwrap();
        assert!(!whole.overlaps(&elsewhere));
        assert_eq!(
            bucket_host("https://s3.example.com", "b1"),
            "https://b1.s3.example.com"
        );
        assert_eq!(
            bucket_host("http://localhost:3900/", "b1"),
            "http://b1.localhost:3900"
        );
        assert_eq!(
            bucket_host("https://b1.s3.example.com", "b1"),
            "https://b1.s3.example.com"
        );
        let bucket = Bucket::parse("s3://journal/a/b/?endpoint=http://h:9000/").unwrap();
        assert_eq!(bucket.prefix(), Some("a/b"));
        assert_eq!(bucket.endpoint.as_deref(), Some("http://h:9000"));
    }

    #[test]
    fn a_bucket_url_with_a_secret_or_a_mistake_is_refused_without_echoing_the_secret() {
        for given in [
            "s3://key:hunter2@journal",
            "s3://journal?secret_access_key=hunter2",
            "s3://journal?aws_secret_access_key=hunter2",
            "s3://Journal?secret_access_key=hunter2",
            "https://AKIA:hunter2@s3.example.com/b",
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
            "s3://journal?endpoint=ftp://user:hunter2@x",
            "s3://journal?addressing=hunter2",
            "s3://journal?hunter2=1",
            "ftp://hunter2",
        ] {
            let why = Bucket::parse(given).unwrap_err();
            assert!(why.starts_with("the bucket URL: "), "{why}");
            assert!(!why.contains("hunter2"), "{given}: {why}");
        }
    }
}
