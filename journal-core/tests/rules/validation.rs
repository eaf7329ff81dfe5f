//! Validation: what registration, domain values and entries refuse, and how they say so.

use crate::common::{entry, journal, user};
use crate::{page, validation};
use base64::Engine as _;
use journal_core::api::{CreateEntryRequest, RegisterRequest, UpdateEntryRequest};
use journal_core::domain::{Email, PageRequest, ProfilePic};

#[tokio::test]
async fn registration_refuses_invalid_fields_with_actionable_messages() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    let good = crate::common::register_request("ok@example.com", "ok");
    let cases: Vec<(RegisterRequest, &str, &str)> = vec![
        (
            RegisterRequest {
                email: Some("not-an-address".into()),
                ..good.clone()
            },
            "email",
            "valid e-mail",
        ),
        (
            RegisterRequest {
                email: None,
                ..good.clone()
            },
            "email",
            "required",
        ),
        (
            RegisterRequest {
                password: Some("short".into()),
                ..good.clone()
            },
            "password",
            "at least 8",
        ),
        (
            RegisterRequest {
                password: Some("x".repeat(1025)),
                ..good.clone()
            },
            "password",
            "at most 1024",
        ),
        (
            RegisterRequest {
                password: Some("password123".into()),
                ..good.clone()
            },
            "password",
            "common",
        ),
        (
            RegisterRequest {
                full_name: Some("   ".into()),
                ..good.clone()
            },
            "fullName",
            "empty",
        ),
        (
            RegisterRequest {
                nickname: Some("n".repeat(101)),
                ..good.clone()
            },
            "nickname",
            "at most 100",
        ),
        (
            RegisterRequest {
                nickname: Some("nul\0byte".into()),
                ..good.clone()
            },
            "nickname",
            "NUL",
        ),
    ];
    for (request, field, needle) in cases {
        let (f, message) = validation(j.register(&request).await);
        assert_eq!(f, field, "{message}");
        assert!(
            message.contains(needle),
            "{field}: {message:?} should mention {needle:?}"
        );
    }
    // Nothing was stored by the refusals: the address is still free.
    j.register(&good)
        .await
        .expect("valid registration after refusals");
}

#[test]
fn domain_values_validate_on_construction() {
    assert_eq!(
        Email::parse("  Ada@Example.COM ").unwrap().as_ref(),
        "ada@example.com"
    );
    assert!(Email::parse("me@localhost").is_ok());
    for bad in ["", "a@", "@b.c", "a b@c.d", "a@b..c", "a@-b.c", "a@@b.c"] {
        assert!(Email::parse(bad).is_err(), "{bad:?} should be refused");
    }
    let png = base64::engine::general_purpose::STANDARD.encode([0x89, b'P', b'N', b'G']);
    assert!(ProfilePic::parse(&format!("data:image/png;base64,{png}")).is_ok());
    assert!(ProfilePic::parse("").is_ok());
    assert!(ProfilePic::parse("data:image/svg+xml;base64,PHN2Zz4=").is_err());
    assert!(ProfilePic::parse("data:image/png;base64,!!!").is_err());
    assert!(ProfilePic::parse("http://example.com/a.png").is_err());
    let big = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 512 * 1024 + 1]);
    let err = ProfilePic::parse(&format!("data:image/jpeg;base64,{big}")).unwrap_err();
    assert!(err.message.contains("512 KiB"), "{err}");
    let exact = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 512 * 1024]);
    assert!(ProfilePic::parse(&format!("data:image/webp;base64,{exact}")).is_ok());

    assert_eq!(
        PageRequest::new(None, None).unwrap(),
        PageRequest::default()
    );
    for (p, l) in [
        (Some(0), None),
        (Some(-1), None),
        (None, Some(0)),
        (None, Some(101)),
    ] {
        assert!(PageRequest::new(p, l).is_err(), "{p:?} {l:?}");
    }
    assert!(
        PageRequest::from_query(Some("abc"), None)
            .unwrap_err()
            .message
            .contains("1 to")
    );
    assert_eq!(
        PageRequest::from_query(Some("2"), Some("100"))
            .unwrap()
            .offset(),
        100
    );
}

#[tokio::test]
async fn entries_are_validated_and_title_only_entries_are_allowed() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let title_only = j
        .create_entry(
            &me,
            &CreateEntryRequest {
                title: Some("  Just a line  ".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(title_only.title, "Just a line");
    assert_eq!(title_only.content, "");
    assert!(!title_only.is_public, "entries are private by default");
    let (f, m) = validation(
        j.create_entry(&me, &entry(&"t".repeat(201), "", false))
            .await,
    );
    assert_eq!((f.as_str(), m.contains("200")), ("title", true));
    let (f, _) = validation(
        j.create_entry(&me, &entry("ok", &"c".repeat(100_001), false))
            .await,
    );
    assert_eq!(f, "content");
    let (f, _) = validation(j.create_entry(&me, &CreateEntryRequest::default()).await);
    assert_eq!(f, "title");
    let (f, _) = validation(
        j.update_entry(&me, &title_only.id, &UpdateEntryRequest::default())
            .await,
    );
    assert_eq!(f, "body");
    assert!(
        j.create_entry(&me, &entry("ok", &"c".repeat(100_000), false))
            .await
            .is_ok()
    );
    assert_eq!(
        j.user_entries(&me, me.user_id(), page(1, 10))
            .await
            .unwrap()
            .total,
        2
    );
    // createdAt is ISO 8601 UTC with milliseconds.
    let json = serde_json::to_value(&title_only).unwrap();
    let created = json["createdAt"].as_str().unwrap();
    assert_eq!(created.len(), "2024-08-27T11:42:28.185Z".len(), "{created}");
    assert!(created.ends_with('Z'));
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 13, "{keys:?}");
}
